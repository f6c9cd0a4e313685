package origin_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/papermem/papermem/internal/origin"
)

func TestFullText(t *testing.T) {
	for _, tc := range []struct {
		name                string
		doi                 string
		unpaywall, openalex http.HandlerFunc
		want                []string
		wantErr             error
	}{
		{
			name:      "Order",
			doi:       "10.1000/xyz.1",
			unpaywall: answer(unpaywallXYZ), openalex: answer(openalexXYZ),
			want: []string{
				"https://repo.example/xyz.pdf", "https://mirror.example/xyz.pdf", // Unpaywall's best, then its others
				"https://oa.example/xyz.pdf", "https://landing.example/xyz", // OpenAlex's best PDF, then its oa_url
			},
		},
		{
			name:     "UnpaywallDown",
			doi:      "10.1000/xyz.1",
			openalex: answer(openalexXYZ), unpaywall: status(http.StatusInternalServerError),
			want: []string{"https://oa.example/xyz.pdf", "https://landing.example/xyz"},
		},
		{
			name: "Arxiv",
			doi:  "https://doi.org/10.48550/arXiv.2101.00001",
			want: []string{"https://arxiv.example/pdf/2101.00001"},
		},
		{
			name: "ArxivOnce",
			doi:  "10.48550/arXiv.2101.00001",
			openalex: answer(`{"id":"W2","open_access":{"is_oa":true,"oa_url":"https://arxiv.example/pdf/2101.00001"},
				"best_oa_location":{"pdf_url":"https://arxiv.example/pdf/2101.00001"}}`),
			want: []string{"https://arxiv.example/pdf/2101.00001"},
		},
		{
			name:      "ArxivServicesDown",
			doi:       "10.48550/arXiv.hep-th/9901001",
			unpaywall: status(http.StatusBadGateway), openalex: status(http.StatusBadGateway),
			want: []string{"https://arxiv.example/pdf/hep-th/9901001"},
		},
		{
			name:      "ClosedAccess",
			doi:       "10.1000/closed",
			unpaywall: answer(`{"doi":"10.1000/closed","is_oa":false,"best_oa_location":null,"oa_locations":[]}`),
			openalex:  answer(`{"id":"W3","open_access":{"is_oa":false,"oa_url":null},"best_oa_location":null}`),
			want:      nil,
		},
		{
			name: "NotFound",
			doi:  "10.1000/nobody",
			want: nil,
		},
		{
			name:      "ErrUpstream",
			doi:       "10.1000/xyz.1",
			unpaywall: status(http.StatusInternalServerError), openalex: status(http.StatusInternalServerError),
			wantErr: origin.ErrUpstream,
		},
		{
			name:    "ErrInvalid",
			doi:     "arXiv:2101.00001",
			wantErr: origin.ErrInvalid,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t)
			f.handle("unpaywall", tc.unpaywall)
			f.handle("openalex", tc.openalex)
			got, err := origin.New(f.options()).FullText(context.Background(), tc.doi)
			if !errors.Is(err, tc.wantErr) || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("FullText(%q) = %q, %v; want %q, %v", tc.doi, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestArxivID(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"10.48550/arXiv.2101.00001", "2101.00001"},
		{"10.48550/ARXIV.2101.00001", "2101.00001"},
		{"https://doi.org/10.48550/arXiv.1706.03762", "1706.03762"},
		{"doi:10.48550/arXiv.0704.0001", "0704.0001"},
		{"10.48550/arXiv.hep-th/9901001", "hep-th/9901001"},
		{"10.48550/arXiv.math.GT/0309136", "math.GT/0309136"},
		{"https://arxiv.org/abs/2101.00001v2", "2101.00001v2"},
		{"http://arxiv.org/abs/2101.00001", "2101.00001"},
		{"https://arxiv.org/pdf/2101.00001v1.pdf", "2101.00001v1"},
		{"https://arxiv.org/pdf/2101.00001", "2101.00001"},
		{"arxiv.org/abs/1706.03762/", "1706.03762"},
		{"https://export.arxiv.org/abs/hep-th/9901001v3", "hep-th/9901001v3"},
		{"https://www.arxiv.org/abs/cond-mat/0102536", "cond-mat/0102536"},
		{"arXiv:2101.00001", "2101.00001"},
		{"  arXiv:1706.03762v5 ", "1706.03762v5"},
		{"", ""},
		{"2101.00001", ""},                          // a bare number is not said to be arXiv's
		{"10.1000/xyz.1", ""},                       // another DOI
		{"10.48550/arXiv.notanid", ""},              // malformed id
		{"https://arxiv.org/list/cs.CL/recent", ""}, // not a paper
		{"https://example.org/abs/2101.00001", ""},  // not arXiv
		{"https://arxiv.org.evil.com/abs/2101.00001", ""},
		{"https://notarxiv.org/abs/2101.00001", ""},
		{"ftp://arxiv.org/abs/2101.00001", ""},
		{"https://arxiv.org/abs/21010.0001", ""},
	} {
		if got := origin.ArxivID(tc.in); got != tc.want {
			t.Errorf("ArxivID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzArxivID(f *testing.F) {
	for _, s := range []string{"10.48550/arXiv.2101.00001", "https://arxiv.org/abs/hep-th/9901001v2", "arXiv:math.GT/0309136", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id := origin.ArxivID(s)
		if id == "" {
			return
		}
		// An id found anywhere reads the same from its DOI and its URL.
		if got := origin.ArxivID("10.48550/arXiv." + id); got != id {
			t.Errorf("ArxivID(%q) = %q, but its DOI gives %q", s, id, got)
		}
		if got := origin.ArxivID("https://arxiv.org/abs/" + id); got != id {
			t.Errorf("ArxivID(%q) = %q, but its URL gives %q", s, id, got)
		}
	})
}

func ExampleArxivID() {
	fmt.Println(origin.ArxivID("https://doi.org/10.48550/arXiv.1706.03762"))
	fmt.Println(origin.ArxivID("https://arxiv.org/pdf/hep-th/9901001v2.pdf"))
	fmt.Println(origin.ArxivID("10.1000/xyz") == "")
	// Output:
	// 1706.03762
	// hep-th/9901001v2
	// true
}
