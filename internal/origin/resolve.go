package origin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// unresolvable are the Crossref types of records that share a paper's
// title without being the paper: peer reviews and a work's components
// (its figures and supplements).
var unresolvable = map[string]bool{"peer-review": true, "component": true}

// Resolve returns the DOI of the work titled title, lower-cased, or ""
// when Crossref knows no work that matches well enough. It asks Crossref
// for its best resolveRows (5) hits for the title (query.bibliographic)
// and, of those whose relevance score reaches Options.MinScore (default
// DefaultMinScore, 20) and that are neither peer reviews nor components,
// takes the one whose title is most similar to title; it accepts it when
// that similarity, the Dice coefficient of the two titles' sets of words
// (lower-cased, with markup and punctuation removed; a hit's title is
// compared both alone and with its subtitle), reaches Options.MinSimilarity
// (default DefaultMinSimilarity, 0.8). Ties go to Crossref's order.
//
// A search answer is cached only when it yields a DOI, so a title not yet
// registered is searched again next time.
//
// Errors: ErrInvalid when title has no words; ErrUpstream when Crossref
// fails.
func (c *Client) Resolve(ctx context.Context, title string) (string, error) {
	want := words(title)
	if len(want) == 0 {
		return "", fmt.Errorf("%w: empty title", ErrInvalid)
	}
	q := url.Values{
		"query.bibliographic": {strings.Join(strings.Fields(title), " ")},
		"rows":                {strconv.Itoa(resolveRows)},
	}
	var doi string
	err := c.get(ctx, request{svc: c.crossref, path: "/works", query: q, keep: func() bool { return doi != "" }}, func(b []byte) error {
		var env struct {
			Message *struct {
				Items []crossrefWork `json:"items"`
			} `json:"message"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			return err
		}
		if env.Message == nil {
			return errors.New("no message")
		}
		doi = c.bestMatch(want, env.Message.Items)
		return nil
	})
	switch {
	case errors.Is(err, ErrNotFound): // the search itself is missing
		return "", fmt.Errorf("%w: crossref search for %q: not found", ErrUpstream, title)
	case err != nil:
		return "", err
	}
	return doi, nil
}

// bestMatch is the lower-cased DOI of the item that matches the title
// words want, or "".
func (c *Client) bestMatch(want map[string]bool, items []crossrefWork) string {
	var best string
	var bestSim float64
	for _, it := range items {
		if it.DOI == "" || it.Score < c.minScore || unresolvable[it.Type] {
			continue
		}
		t := first(it.Title)
		sim := dice(want, words(t))
		if s := first(it.Subtitle); s != "" {
			sim = max(sim, dice(want, words(t+" "+s)))
		}
		if sim > bestSim {
			best, bestSim = it.DOI, sim
		}
	}
	if best == "" || bestSim < c.minSim {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(best))
}

// words is the set of s's words: lower-cased runs of letters and digits,
// after inline markup and entities are removed.
func words(s string) map[string]bool {
	f := strings.FieldsFunc(strings.ToLower(cleanTitle(s)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	set := make(map[string]bool, len(f))
	for _, w := range f {
		set[w] = true
	}
	return set
}

// dice is the Dice coefficient of two sets, 2|a∩b| / (|a|+|b|); 0 when
// both are empty.
func dice(a, b map[string]bool) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return 2 * float64(n) / float64(len(a)+len(b))
}
