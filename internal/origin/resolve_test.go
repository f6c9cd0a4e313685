package origin_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/papermem/papermem/internal/origin"
)

func TestResolve(t *testing.T) {
	search := func(items string) http.HandlerFunc {
		return answer(`{"status":"ok","message-type":"work-list","message":{"total-results":3,"items":` + items + `,"items-per-page":5}}`)
	}
	const cats = "Deep Learning for Cats and Dogs."
	for _, tc := range []struct {
		name     string
		title    string
		crossref http.HandlerFunc
		opts     func(*origin.Options)
		want     string
		wantErr  error
	}{
		{
			name:  "CloseMatch",
			title: cats,
			crossref: search(`[
				{"DOI":"10.1000/other","title":["Cats"],"score":95.1,"type":"journal-article"},
				{"DOI":"10.1000/XYZ.1","title":["Deep <i>learning</i> for cats &amp; dogs"],"score":61.5,"type":"journal-article"}]`),
			want: "10.1000/xyz.1", // Dice 10/11: "and" is missing
		},
		{
			name:  "Subtitle",
			title: "Attention is all you need: a study of transformers",
			crossref: search(`[{"DOI":"10.1000/att","title":["Attention Is All You Need"],
				"subtitle":["A Study of Transformers"],"score":80,"type":"proceedings-article"}]`),
			want: "10.1000/att",
		},
		{
			name:  "BestOfSeveral",
			title: "Graph neural networks for protein folding at scale",
			crossref: search(`[
				{"DOI":"10.1000/near","title":["Graph neural networks for protein folding"],"score":90},
				{"DOI":"10.1000/exact","title":["Graph Neural Networks for Protein Folding at Scale"],"score":88}]`),
			want: "10.1000/exact",
		},
		{
			name:     "WeakTitle",
			title:    cats,
			crossref: search(`[{"DOI":"10.1000/fish","title":["Deep learning for fish"],"score":120}]`),
			want:     "", // Dice 6/10
		},
		{
			name:     "LowScore",
			title:    cats,
			crossref: search(`[{"DOI":"10.1000/xyz.1","title":["Deep learning for cats and dogs"],"score":5}]`),
			want:     "",
		},
		{
			name:     "PeerReview",
			title:    cats,
			crossref: search(`[{"DOI":"10.1000/review","title":["Deep learning for cats and dogs"],"score":90,"type":"peer-review"}]`),
			want:     "",
		},
		{
			name:     "NoItems",
			title:    cats,
			crossref: search(`[]`),
			want:     "",
		},
		{
			name:     "LooserThreshold",
			title:    cats,
			crossref: search(`[{"DOI":"10.1000/fish","title":["Deep learning for fish"],"score":120}]`),
			opts:     func(o *origin.Options) { o.MinSimilarity = 0.5 },
			want:     "10.1000/fish",
		},
		{
			name:     "HigherScoreFloor",
			title:    cats,
			crossref: search(`[{"DOI":"10.1000/xyz.1","title":["Deep learning for cats and dogs"],"score":40}]`),
			opts:     func(o *origin.Options) { o.MinScore = 50 },
			want:     "",
		},
		{
			name:    "ErrInvalid",
			title:   " ?! ",
			wantErr: origin.ErrInvalid,
		},
		{
			name:     "ErrUpstream",
			title:    cats,
			crossref: status(http.StatusInternalServerError),
			wantErr:  origin.ErrUpstream,
		},
		{
			name:     "Malformed",
			title:    cats,
			crossref: answer(`{"status":"ok","message":{"items":[{"DOI":`),
			wantErr:  origin.ErrUpstream,
		},
		{
			name:     "SearchNotFound",
			title:    cats,
			crossref: status(http.StatusNotFound),
			wantErr:  origin.ErrUpstream,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t)
			f.handle("crossref", tc.crossref)
			o := f.options()
			if tc.opts != nil {
				tc.opts(&o)
			}
			got, err := origin.New(o).Resolve(context.Background(), tc.title)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q, %v", tc.title, got, err, tc.want, tc.wantErr)
			}
			if tc.wantErr == origin.ErrUpstream && errors.Is(err, origin.ErrNotFound) {
				t.Errorf("Resolve error %v matches ErrNotFound", err)
			}
			reqs := f.requests("crossref")
			if tc.crossref == nil {
				if len(reqs) != 0 {
					t.Errorf("crossref received %d requests, want none", len(reqs))
				}
				return
			}
			if len(reqs) == 0 {
				t.Fatal("crossref received no request")
			}
			r := reqs[0]
			q := r.URL.Query()
			if r.URL.Path != "/works" || q.Get("query.bibliographic") != tc.title ||
				q.Get("rows") != "5" || q.Get("mailto") != contact {
				t.Errorf("request %s, want /works?query.bibliographic=%s&rows=5&mailto=%s", r.URL, tc.title, contact)
			}
		})
	}
}

// TestResolveCache: a search that matched is cached, one that did not is
// asked again.
func TestResolveCache(t *testing.T) {
	f := newFake(t)
	f.handle("crossref", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("query.bibliographic") == "Deep learning for cats and dogs" {
			answer(`{"message":{"items":[{"DOI":"10.1000/xyz.1","title":["Deep learning for cats and dogs"],"score":70}]}}`)(w, r)
			return
		}
		answer(`{"message":{"items":[]}}`)(w, r)
	})
	o := f.options()
	o.Cache = &memCache{}
	c := origin.New(o)
	ctx := context.Background()
	for i := range 2 {
		if doi, err := c.Resolve(ctx, "Deep learning   for cats and dogs"); doi != "10.1000/xyz.1" || err != nil {
			t.Fatalf("Resolve #%d = %q, %v", i, doi, err)
		}
		if doi, err := c.Resolve(ctx, "Unknown yet"); doi != "" || err != nil {
			t.Fatalf("Resolve #%d = %q, %v", i, doi, err)
		}
	}
	if n := f.hits("crossref"); n != 3 {
		t.Errorf("crossref received %d requests, want 3 (the match once, the miss twice)", n)
	}
}
