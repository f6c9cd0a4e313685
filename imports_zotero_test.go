package papermem_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testutil"
	"github.com/papermem/papermem/internal/zotero/zoterotest"
)

const zoteroKey = "P9NiFoyLeZu2bZNvvuQPDWsd"

// zoteroLibrary fills a stand-in library: a journal article with a DOI, a
// PDF, a child note, tags and a collection; a book without a DOI; a
// standalone note.
func zoteroLibrary(t *testing.T) *zoteroStandIn {
	t.Helper()
	lib := zoterotest.New("users/4242", zoteroKey)
	srv := lib.Start()
	t.Cleanup(srv.Close)
	lib.Put("COLL1111", map[string]any{"itemType": "collection", "name": "Glaciology"})
	lib.Put("ART11111", map[string]any{"itemType": "journalArticle", "title": "Glacier retreat in the Alps",
		"creators":         []map[string]any{{"creatorType": "author", "firstName": "Ada", "lastName": "Lovelace"}, {"creatorType": "editor", "name": "Glacier Board"}},
		"publicationTitle": "Journal of Glaciology", "date": "2020-03-01", "DOI": "10.1000/GLACIER.2020",
		"abstractNote": "We measure the retreat of alpine glaciers.", "tags": []map[string]any{{"tag": "glaciers"}, {"tag": "climate", "type": 1}},
		"collections": []string{"COLL1111"}})
	lib.PutFile("PDF11111", testutil.PDF("Glacier retreat in the Alps",
		"Moraine sediments show that the Rhone glacier lost forty percent of its ice mass since 1850."),
		map[string]any{"parentItem": "ART11111", "title": "Full Text PDF"})
	lib.Put("NOTE1111", map[string]any{"itemType": "note", "parentItem": "ART11111", "note": "<p>read again</p>"})
	lib.Put("BOOK1111", map[string]any{"itemType": "book", "title": "Rings and ideals", "date": "1921",
		"creators":     []map[string]any{{"creatorType": "author", "firstName": "Emmy", "lastName": "Noether"}},
		"abstractNote": "Ascending chain conditions on the ideals of commutative rings."})
	lib.Put("NOTE2222", map[string]any{"itemType": "note", "note": "<p>standalone</p>"})
	return &zoteroStandIn{Library: lib, url: srv.URL}
}

type zoteroStandIn struct {
	*zoterotest.Library
	url string
}

// waitImport polls the import until it is over.
func waitImport(t *testing.T, ws *papermem.Workspace, id int64) *papermem.Import {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		im, err := ws.Import(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if im.Status != papermem.ImportRunning {
			return im
		}
	}
	t.Fatal("the import did not end")
	return nil
}

func TestImportZotero(t *testing.T) {
	lib := zoteroLibrary(t)
	log := &testutil.Buffer{}
	m := testutil.Open(t, &papermem.Options{Zotero: &papermem.ZoteroOptions{URL: lib.url},
		Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	ws := m.Workspace("lab-one")
	req := papermem.ImportRequest{Source: papermem.ImportZotero, Library: "users/4242", APIKey: zoteroKey}
	lib.Requests()
	lib.Throttle(1) // the first request is answered 429, Retry-After: 1
	started, err := ws.StartImport(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	im := waitImport(t, ws, started.ID)
	if im.Status != papermem.ImportDone || im.Items != 5 || im.Papers != 2 || im.Documents != 1 || im.Skipped != 3 || len(im.Errors) != 0 {
		t.Fatalf("first import %+v", im)
	}
	if n := lib.MaxInFlight(); n > 4 {
		t.Errorf("%d requests in flight at once, want at most 4", n)
	}

	t.Run("Papers", func(t *testing.T) {
		p, err := ws.Paper(ctx, "10.1000/glacier.2020")
		if err != nil {
			t.Fatal(err)
		}
		if p.Title != "Glacier retreat in the Alps" || p.Year != 2020 || p.Journal != "Journal of Glaciology" ||
			!slices.Equal(p.Authors, []string{"Ada Lovelace"}) || !slices.Equal(p.Tags, []string{"climate", "glaciers"}) ||
			!slices.Equal(p.Collections, []string{"Glaciology"}) || p.Source != "zotero:users/4242" || !p.Cached {
			t.Errorf("article %+v", p)
		}
		page, err := ws.ListPapers(ctx, papermem.PaperQuery{Collection: "Glaciology"})
		if err != nil || len(page.Papers) != 1 {
			t.Errorf("collection Glaciology: %+v, %v", page, err)
		}
		page, err = ws.ListPapers(ctx, papermem.PaperQuery{})
		if err != nil || len(page.Papers) != 2 {
			t.Fatalf("papers %+v, %v", page, err)
		}
		book := page.Papers[slices.IndexFunc(page.Papers, func(p papermem.Paper) bool { return p.DOI != "10.1000/glacier.2020" })]
		if book.Title != "Rings and ideals" || !strings.HasPrefix(book.DOI, "local:") || book.Year != 1921 {
			t.Errorf("book %+v", book)
		}
		res, err := ws.Recall(ctx, papermem.RecallRequest{Question: "How much ice has the Rhone glacier lost since 1850?", Label: papermem.LabelPassage})
		if err != nil || len(res.Spans) == 0 {
			t.Fatalf("recall %+v, %v", res, err)
		}
		for _, s := range res.Spans {
			if s.Provenance.DOI != "10.1000/glacier.2020" {
				t.Errorf("span %q has doi %q", s.Text, s.Provenance.DOI)
			}
		}
	})

	t.Run("Incremental", func(t *testing.T) {
		lib.Put("ART11111", map[string]any{"itemType": "journalArticle", "title": "Glacier retreat in the European Alps",
			"DOI": "10.1000/glacier.2020", "date": "2020", "tags": []map[string]any{{"tag": "glaciers"}}})
		lib.Put("ART22222", map[string]any{"itemType": "conferencePaper", "title": "Sea ice albedo feedback",
			"extra": "DOI: 10.1000/seaice", "proceedingsTitle": "Polar Conference 2022", "date": "2022"})
		lib.Delete("BOOK1111")
		lib.Requests()
		im, err := ws.RunImport(ctx, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if im.Status != papermem.ImportDone || im.Items != 2 || im.Papers != 2 || im.Deleted != 1 || im.Documents != 0 || len(im.Errors) != 0 {
			t.Errorf("second import %+v", im)
		}
		reqs := lib.Requests()
		for _, r := range reqs {
			if strings.Contains(r, "/items?") && !strings.Contains(r, "since=") && !strings.Contains(r, "itemKey=") {
				t.Errorf("request %s reads the whole library", r)
			}
		}
		if !slices.ContainsFunc(reqs, func(r string) bool { return strings.HasPrefix(r, "/users/4242/deleted?since=") }) {
			t.Errorf("no /deleted request among %v", reqs)
		}
		p, err := ws.Paper(ctx, "10.1000/glacier.2020")
		if err != nil || p.Title != "Glacier retreat in the European Alps" || !slices.Equal(p.Tags, []string{"glaciers"}) || !p.Cached {
			t.Errorf("edited paper %+v, %v", p, err)
		}
		if p, err := ws.Paper(ctx, "10.1000/seaice"); err != nil || p.Journal != "Polar Conference 2022" {
			t.Errorf("added paper %+v, %v", p, err)
		}
		page, _ := ws.ListPapers(ctx, papermem.PaperQuery{})
		for _, p := range page.Papers {
			if p.Title == "Rings and ideals" {
				t.Errorf("the deleted book is still here: %+v", p)
			}
		}
	})

	t.Run("NothingChanged", func(t *testing.T) {
		lib.Requests()
		im, err := ws.RunImport(ctx, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if im.Status != papermem.ImportDone || im.Items != 0 || im.Papers != 0 || im.Deleted != 0 {
			t.Errorf("import of an unchanged library %+v", im)
		}
		if reqs := lib.Requests(); len(reqs) != 1 {
			t.Errorf("requests %v, want the one answered 304", reqs)
		}
	})

	t.Run("EditOnly", func(t *testing.T) {
		// Nothing deleted: /deleted answers no key, and every paper stays.
		lib.Put("ART22222", map[string]any{"itemType": "conferencePaper", "title": "Sea ice albedo feedback, revised",
			"extra": "DOI: 10.1000/seaice", "date": "2023"})
		im, err := ws.RunImport(ctx, req, nil)
		if err != nil || im.Items != 1 || im.Papers != 1 || im.Deleted != 0 {
			t.Fatalf("import of one edit: %+v, %v", im, err)
		}
		page, _ := ws.ListPapers(ctx, papermem.PaperQuery{})
		if len(page.Papers) != 2 {
			t.Errorf("papers after an edit: %+v", page.Papers)
		}
	})
	t.Run("ErrWrongKey", func(t *testing.T) {
		other := m.Workspace("lab-two")
		_, err := other.StartImport(ctx, papermem.ImportRequest{Source: papermem.ImportZotero, Library: "users/4242", APIKey: "wrong-key"})
		if papermem.ErrorCode(err) != papermem.EINVALID || !strings.Contains(papermem.ErrorMessage(err), "refused the API key") {
			t.Errorf("wrong key: %v", err)
		}
		if all, _ := other.Imports(ctx, 0); len(all) != 0 {
			t.Errorf("imports recorded: %+v", all)
		}
		if page, _ := other.ListPapers(ctx, papermem.PaperQuery{}); len(page.Papers) != 0 {
			t.Errorf("papers stored: %+v", page.Papers)
		}
	})

	all, err := ws.Imports(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(all)
	for _, s := range []string{string(b), log.String()} {
		if strings.Contains(s, zoteroKey) || strings.Contains(s, "wrong-key") {
			t.Errorf("a Zotero key is in an answer or the log")
		}
	}
}

func TestImportZoteroLocal(t *testing.T) {
	lib := zoterotest.New("users/0", "")
	lib.Local, lib.FileDir = true, t.TempDir()
	srv := lib.Start()
	t.Cleanup(srv.Close)
	lib.Put("ART11111", map[string]any{"itemType": "journalArticle", "title": "Permafrost methane", "DOI": "10.1000/permafrost"})
	lib.PutFile("PDF11111", testutil.PDF("Permafrost thaw releases methane from Siberian lakes."), map[string]any{"parentItem": "ART11111"})
	m := testutil.Open(t, &papermem.Options{Zotero: &papermem.ZoteroOptions{LocalURL: srv.URL}})
	im, err := m.RunImport(ctx, papermem.ImportRequest{Source: papermem.ImportZoteroLocal}, nil)
	if err != nil || im.Status != papermem.ImportDone || im.Papers != 1 || im.Documents != 1 {
		t.Fatalf("import %+v, %v", im, err)
	}
	res, err := m.Recall(ctx, papermem.RecallRequest{Question: "methane from Siberian lakes", Label: papermem.LabelPassage})
	if err != nil || len(res.Spans) == 0 || res.Spans[0].Provenance.DOI != "10.1000/permafrost" {
		t.Errorf("recall %+v, %v", res, err)
	}
	// The web API's file:// locations are never read.
	web := zoterotest.New("users/1", "k")
	web.Local, web.FileDir = true, t.TempDir()
	wsrv := web.Start()
	t.Cleanup(wsrv.Close)
	web.Put("ART1", map[string]any{"itemType": "journalArticle", "title": "Permafrost methane", "DOI": "10.1000/permafrost2"})
	web.PutFile("PDF1", testutil.PDF("Secret."), map[string]any{"parentItem": "ART1"})
	m2 := testutil.Open(t, &papermem.Options{Zotero: &papermem.ZoteroOptions{URL: wsrv.URL}})
	im, err = m2.RunImport(ctx, papermem.ImportRequest{Source: papermem.ImportZotero, Library: "users/1", APIKey: "k"}, nil)
	if err != nil || len(im.Errors) != 1 || im.Documents != 0 {
		t.Errorf("a web import reading a file:// location: %+v, %v", im, err)
	}
}

// TestImportZoteroDown imports from a Zotero that is down: before the
// import, StartImport answers EUPSTREAM at once and records nothing; from
// midway (after the item list was read), the import goes on without it,
// fast: the items that need no request are stored, each of the others is
// an item error (upstream), no error is logged for each item, and the
// library's version is not kept.
func TestImportZoteroDown(t *testing.T) {
	t.Run("BeforeImport", func(t *testing.T) {
		lib := zoterotest.New("users/4242", zoteroKey)
		srv := lib.Start()
		srv.Close() // its port now refuses connections
		m := testutil.Open(t, &papermem.Options{Zotero: &papermem.ZoteroOptions{URL: srv.URL}})
		ws := m.Workspace("lab-one")
		_, err := ws.StartImport(ctx, papermem.ImportRequest{Source: papermem.ImportZotero, Library: "users/4242", APIKey: zoteroKey})
		if papermem.ErrorCode(err) != papermem.EUPSTREAM {
			t.Errorf("StartImport with Zotero down: %v, want %s", err, papermem.EUPSTREAM)
		}
		if all, _ := ws.Imports(ctx, 0); len(all) != 0 {
			t.Errorf("imports recorded: %+v", all)
		}
	})
	t.Run("NeverAnswers", func(t *testing.T) {
		// A Zotero that accepts the connection and never answers: StartImport
		// ends with the caller's context (the client's own bound, the
		// downloads' 5 minutes, is far longer), and records nothing.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			var held []net.Conn // held open, never answered, until the listener closes
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				held = append(held, c)
			}
		}()
		t.Cleanup(func() { l.Close(); <-done })
		m := testutil.Open(t, &papermem.Options{Zotero: &papermem.ZoteroOptions{URL: "http://" + l.Addr().String()}})
		ws := m.Workspace("lab-one")
		cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if _, err := ws.StartImport(cctx, papermem.ImportRequest{Source: papermem.ImportZotero, Library: "users/4242", APIKey: zoteroKey}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("StartImport with Zotero silent: %v, want the caller's deadline", err)
		}
		if all, _ := ws.Imports(ctx, 0); len(all) != 0 {
			t.Errorf("imports recorded: %+v", all)
		}
	})
	// Midway, Zotero drops every connection once the item list is read.
	// With few items to fetch the import finishes, their errors recorded
	// and one line logged; with many, it stops after zoteroDownAfter (10)
	// of them failed in a row, instead of failing every item left. Either
	// way the next import, Zotero back, stores what failed.
	midway := func(t *testing.T, articles int) (m *papermem.Memory, log *testutil.Buffer, down *atomic.Bool, req papermem.ImportRequest, im *papermem.Import) {
		lib := zoterotest.New("users/4242", zoteroKey)
		lib.Start().Close() // the stand-in's own server (its URL in Link headers) is not used: these lists fit a page
		down = &atomic.Bool{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down.Load() { // the connection is dropped unanswered
				if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
					conn.Close()
				}
				return
			}
			lib.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		for i := range articles {
			key := fmt.Sprintf("ART%05d", i)
			lib.Put(key, map[string]any{"itemType": "journalArticle", "title": fmt.Sprintf("Paper with a PDF %d", i), "DOI": fmt.Sprintf("10.1000/down.%d", i)})
			lib.PutFile(fmt.Sprintf("PDF%05d", i), testutil.PDF("Text."), map[string]any{"parentItem": key})
		}
		for i := range 5 {
			lib.Put(fmt.Sprintf("BOOK%04d", i), map[string]any{"itemType": "book", "title": fmt.Sprintf("Book without attachments %d", i)})
		}
		log = &testutil.Buffer{}
		m = testutil.Open(t, &papermem.Options{Zotero: &papermem.ZoteroOptions{URL: srv.URL},
			Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		req = papermem.ImportRequest{Source: papermem.ImportZotero, Library: "users/4242", APIKey: zoteroKey}
		im, err := m.RunImport(ctx, req, func(im papermem.Import) {
			if im.Items > 0 {
				down.Store(true) // the list is read: Zotero goes down
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range im.Errors {
			if e.Code != papermem.EUPSTREAM {
				t.Errorf("item error %+v, want code %s", e, papermem.EUPSTREAM)
			}
		}
		if n := strings.Count(log.String(), "import item failed"); n != 0 {
			t.Errorf("%d item failures logged one by one", n)
		}
		return m, log, down, req, im
	}
	t.Run("MidwayFewItems", func(t *testing.T) {
		m, log, down, req, im := midway(t, 3)
		if im.Status != papermem.ImportDone || im.Items != 11 || im.Papers != 5 || im.Documents != 0 || len(im.Errors) != 3 {
			t.Errorf("import with Zotero down midway: %+v", im)
		}
		if n := strings.Count(log.String(), "import done; the source failed some items"); n != 1 {
			t.Errorf("%d lines say the source failed items, want one:\n%s", n, log)
		}
		down.Store(false)
		im, err := m.RunImport(ctx, req, nil)
		if err != nil || im.Status != papermem.ImportDone || im.Papers != 3 || im.Documents != 3 || im.Skipped != 8 || len(im.Errors) != 0 {
			t.Errorf("import with Zotero back: %+v, %v", im, err)
		}
	})
	t.Run("MidwayManyItems", func(t *testing.T) {
		m, log, down, req, im := midway(t, 20)
		if im.Status != papermem.ImportFailed || !strings.Contains(im.Message, "Zotero stopped answering") ||
			len(im.Errors) < 10 || len(im.Errors) >= 20 || im.Papers != 0 {
			t.Errorf("import with Zotero down midway: %+v", im)
		}
		if n := strings.Count(log.String(), "import stopped: the source stopped answering"); n != 1 {
			t.Errorf("%d lines say the import stopped, want one:\n%s", n, log)
		}
		// The version was not kept: once Zotero is back, the next import
		// reads the whole library again and stores what it did not.
		down.Store(false)
		im, err := m.RunImport(ctx, req, nil)
		if err != nil || im.Status != papermem.ImportDone || im.Items != 45 || im.Papers != 25 || im.Documents != 20 || im.Skipped != 20 || len(im.Errors) != 0 {
			t.Errorf("import with Zotero back: %+v, %v", im, err)
		}
	})
}
