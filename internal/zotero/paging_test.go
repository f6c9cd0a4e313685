package zotero_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/papermem/papermem/internal/zotero"
	"github.com/papermem/papermem/internal/zotero/zoterotest"
)

// TestListsPages reads a library's items, one item's children and its
// collections, each list longer than a page of zotero.PageSize, from a
// stand-in that pages as Zotero does (start and limit, Total-Results,
// Link rel="next") and from one that sends only Total-Results (a server
// that pages only when asked): every entry once either way, the items in
// as many pages as they fill, at the library's version.
func TestListsPages(t *testing.T) {
	for _, noLinks := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoLinks=%v", noLinks), func(t *testing.T) {
			lib := zoterotest.New("users/4242", "k")
			lib.NoLinks = noLinks
			lib.Put("PARENT00", map[string]any{"itemType": "journalArticle", "title": "Parent"})
			for i := range 130 {
				lib.Put(fmt.Sprintf("N%07d", i), map[string]any{"itemType": "note", "parentItem": "PARENT00", "note": fmt.Sprintf("Note %d", i)})
			}
			for i := range 119 {
				lib.Put(fmt.Sprintf("K%07d", i), map[string]any{"itemType": "journalArticle", "title": fmt.Sprintf("Paper %d", i)})
			}
			for i := range 120 {
				lib.Put(fmt.Sprintf("C%07d", i), map[string]any{"itemType": "collection", "name": fmt.Sprintf("Collection %d", i)})
			}
			srv := lib.Start()
			t.Cleanup(srv.Close)
			c, err := zotero.New(zotero.Options{URL: srv.URL, Library: "users/4242", Key: "k"})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			items := map[string]bool{}
			pages := 0
			ver, _, err := c.Items(ctx, 0, func(p zotero.Page) error {
				pages++
				if p.Total != 250 {
					t.Errorf("page %d: Total %d, want 250", pages, p.Total)
				}
				for _, it := range p.Items {
					if items[it.Key] {
						t.Errorf("item %s read twice", it.Key)
					}
					items[it.Key] = true
				}
				return nil
			})
			if err != nil || len(items) != 250 || ver != 370 {
				t.Errorf("Items: %d, version %d, %v; want 250 at version 370 (one a Put)", len(items), ver, err)
			}
			if want := (250 + zotero.PageSize - 1) / zotero.PageSize; pages != want {
				t.Errorf("%d pages, want %d", pages, want)
			}
			children, err := c.Children(ctx, "PARENT00")
			if err != nil || len(children) != 130 {
				t.Errorf("Children: %d, %v; want 130", len(children), err)
			}
			cols, err := c.Collections(ctx)
			if err != nil || len(cols) != 120 || cols["C0000119"] != "Collection 119" {
				t.Errorf("Collections: %d, %v; want 120", len(cols), err)
			}
		})
	}
}

// TestSilentServer reads a library from a server that accepts the
// connection and never answers, and one that answers after 5 s: the
// caller's deadline (200 ms) ends both with an error, not a hang.
func TestSilentServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered, until the test ends
		}
	}()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	for name, u := range map[string]string{"NeverAnswers": "http://" + l.Addr().String(), "Slow": slow.URL} {
		t.Run(name, func(t *testing.T) {
			c, err := zotero.New(zotero.Options{URL: u, Library: "users/1", Key: "k"})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			if _, _, err := c.Items(ctx, 0, func(zotero.Page) error { return nil }); err == nil {
				t.Fatal("Items answered without a server answer")
			}
		})
	}
}

// TestListChanged reads a library that changes between its first and
// second pages: the read ends with ErrChanged, not with a list whose
// entries may have moved across its pages.
func TestListChanged(t *testing.T) {
	lib := zoterotest.New("users/4242", "k")
	for i := range 150 {
		lib.Put(fmt.Sprintf("K%07d", i), map[string]any{"itemType": "journalArticle", "title": fmt.Sprintf("Paper %d", i)})
	}
	srv := lib.Start()
	t.Cleanup(srv.Close)
	c, err := zotero.New(zotero.Options{URL: srv.URL, Library: "users/4242", Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	_, _, err = c.Items(context.Background(), 0, func(zotero.Page) error {
		if pages++; pages == 1 {
			lib.Put("A0000000", map[string]any{"itemType": "book", "title": "Added while the list is read"})
		}
		return nil
	})
	if !errors.Is(err, zotero.ErrChanged) || pages != 1 {
		t.Errorf("Items over a library that changed: %v after %d pages, want ErrChanged after the first", err, pages)
	}
}
