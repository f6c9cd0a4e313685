package papermem_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/papermem/papermem"
)

// TestIDsPerWorkspace checks that the ids a workspace sees are its own
// numbers: after another workspace stored documents, papers and notes, a
// new workspace's first document is doc:1 and its nodes (spans, notes,
// claims of the graph) are numbered 1 to the number it stored, so no id
// tells one tenant how much the others store; and that those numbers are
// what sessions and the graph take back.
func TestIDsPerWorkspace(t *testing.T) {
	ctx := context.Background()
	m := mustOpen(t)
	busy := m.Workspace("busy")
	for i := range 5 {
		if _, err := busy.IngestFile(ctx, fmt.Sprintf("n%d.md", i), strings.NewReader(fmt.Sprintf("# Notes %d\n\nThe pump in room %d failed twice in May.", i, i)), papermem.IngestOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mustStore(t, busy, papermem.PaperInput{DOI: "10.1000/busy", Title: "Busy", Text: "Abstract\nAspirin reduced headaches by 40% in a randomised trial."})
	if _, err := busy.Remember(ctx, "ada", papermem.NoteInput{Text: "Ada drinks her coffee black."}); err != nil {
		t.Fatal(err)
	}

	fresh := m.Workspace("fresh")
	rep, err := fresh.IngestFile(ctx, "plan.md", strings.NewReader("# Plan\n\nThe centrifuge in room 4 runs at 4 °C since the March service."), papermem.IngestOptions{})
	if err != nil || rep.DocID != "doc:1" {
		t.Fatalf("the first document of a new workspace: %+v, %v; want doc:1", rep, err)
	}
	nodes := rep.NodesStored
	docs, err := fresh.Documents(ctx, 0)
	if err != nil || len(docs) != 1 || docs[0].ID != "doc:1" {
		t.Errorf("Documents = %+v, %v; want doc:1", docs, err)
	}
	_, stored, err := fresh.StorePaper(ctx, papermem.PaperInput{DOI: "10.1000/vitd", Title: "Vitamin D and fractures",
		Text: "Abstract\nVitamin D supplementation did not reduce fracture risk in adults over 70 (hazard ratio 0.98)."})
	if err != nil {
		t.Fatal(err)
	}
	nodes += stored.NodesStored
	note, err := fresh.Remember(ctx, "ada", papermem.NoteInput{Text: "Ada wants effect sizes with confidence intervals."})
	nodes++
	if err != nil || note.NodeID != int64(nodes) {
		t.Errorf("Remember = %+v, %v; want node %d, the workspace's last", note, err, nodes)
	}
	// A second document is doc:2, whatever the other workspace stores.
	if _, err := busy.IngestFile(ctx, "more.md", strings.NewReader("# More\n\nMore notes."), papermem.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if rep, err := fresh.IngestFile(ctx, "two.md", strings.NewReader("# Two\n\nThe freezer alarm rang at night."), papermem.IngestOptions{}); err != nil || rep.DocID != "doc:2" {
		t.Errorf("the second document: %+v, %v; want doc:2", rep, err)
	} else {
		nodes += rep.NodesStored
	}

	res, err := fresh.Recall(ctx, papermem.RecallRequest{Question: "Does vitamin D prevent fractures?", Label: papermem.LabelAny})
	if err != nil || len(res.Spans) == 0 {
		t.Fatalf("Recall = %+v, %v", res, err)
	}
	var claim int64
	for _, s := range res.Spans {
		if s.NodeID < 1 || s.NodeID > int64(nodes) {
			t.Errorf("span node_id %d outside the workspace's 1..%d", s.NodeID, nodes)
		}
		if s.Provenance.DOI == "10.1000/vitd" && claim == 0 {
			claim = s.NodeID
		}
	}
	if claim == 0 {
		t.Fatalf("no span of 10.1000/vitd recalled: %+v", res.Spans)
	}
	mem, err := fresh.RecallUser(ctx, "ada", papermem.UserRecallRequest{Question: "How does Ada want effect sizes?"})
	if err != nil || len(mem.Spans) != 1 || mem.Spans[0].NodeID != note.NodeID {
		t.Errorf("RecallUser = %+v, %v; want node %d", mem, err, note.NodeID)
	}

	// Sessions and the graph take the numbers back, and show them.
	if _, err := fresh.LinkSession(ctx, papermem.SessionLink{SessionID: "s1", Papers: []string{"10.1000/vitd"}, Claims: []int64{claim}}); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.ExportSession(ctx, papermem.SessionRecord{SessionID: "s2", RecalledClaims: []int64{claim}}); err != nil {
		t.Fatal(err)
	}
	g, err := fresh.Neighborhood(ctx, "claim:"+strconv.FormatInt(claim, 10), 1)
	if err != nil {
		t.Fatal(err)
	}
	var sessions []string
	for _, n := range g.Nodes {
		switch n.Type {
		case papermem.NodeClaim:
			if n.ID != "claim:"+strconv.FormatInt(claim, 10) || n.NodeID != claim || !strings.Contains(n.Label, "Vitamin D") {
				t.Errorf("claim node %+v, want claim:%d", n, claim)
			}
		case papermem.NodeSession:
			sessions = append(sessions, n.SessionID)
		}
	}
	if len(sessions) != 2 {
		t.Errorf("the claim's sessions: %v, want s1 and s2 (%+v)", sessions, g)
	}
	if _, err := fresh.LinkSession(ctx, papermem.SessionLink{SessionID: "s3", Claims: []int64{int64(nodes + 1)}}); papermem.ErrorCode(err) != papermem.EINVALID {
		t.Errorf("a number the workspace has not given: %v, want EINVALID", err)
	}
	if _, err := fresh.Neighborhood(ctx, "claim:"+strconv.Itoa(nodes+1), 1); papermem.ErrorCode(err) != papermem.ENOTFOUND {
		t.Errorf("Neighborhood of a number the workspace has not given: %v, want ENOTFOUND", err)
	}

	// A number is never given twice: forgetting the last node frees none.
	if err := fresh.Forget(ctx, "ada", note.Key); err != nil {
		t.Fatal(err)
	}
	again, err := fresh.Remember(ctx, "ada", papermem.NoteInput{Text: "Ada moved to Lisbon."})
	if err != nil || again.NodeID != int64(nodes+1) {
		t.Errorf("Remember after Forget = %+v, %v; want node %d", again, err, nodes+1)
	}
}

// TestExportCursorsPerWorkspace checks that an export page's cursor names
// the record by its time and session id, not by a row id numbered across
// workspaces, and pages through records of one time in order.
func TestExportCursorsPerWorkspace(t *testing.T) {
	ctx := context.Background()
	m := mustOpen(t)
	busy, fresh := m.Workspace("busy"), m.Workspace("fresh")
	for i := range 5 {
		if _, err := busy.ExportSession(ctx, papermem.SessionRecord{SessionID: fmt.Sprint("b", i)}); err != nil {
			t.Fatal(err)
		}
	}
	const at = "2026-03-01T10:00:00Z"
	for _, s := range []string{"x", "y", "z"} {
		if _, err := fresh.ExportSession(ctx, papermem.SessionRecord{SessionID: s, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	q := papermem.ExportQuery{Limit: 1}
	for range 4 {
		page, err := fresh.Exports(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Records {
			got = append(got, r.SessionID)
		}
		if page.NextCursor == "" {
			break
		}
		raw, err := base64.RawURLEncoding.DecodeString(page.NextCursor)
		if err != nil || !strings.HasSuffix(string(raw), "|"+page.Records[0].SessionID) {
			t.Errorf("cursor %q (%s, %v) does not name the record by its session", page.NextCursor, raw, err)
		}
		q.Cursor = page.NextCursor
	}
	if strings.Join(got, ",") != "z,y,x" {
		t.Errorf("pages: %v, want z, y, x (latest written first)", got)
	}
}
