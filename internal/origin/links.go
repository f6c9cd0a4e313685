package origin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Citation link limits, used when the corresponding LinkLimits field is
// zero.
const (
	// DefaultMaxReferences bounds the references read of one work.
	DefaultMaxReferences = 500
	// DefaultMaxCiters bounds the citing works read of one work.
	DefaultMaxCiters = 500
	// openalexBatch is how many works one OpenAlex list request names in
	// an openalex: or doi: filter (values joined by "|").
	openalexBatch = 50
	// openalexPage is the per-page of the citing works' cursor paging
	// (OpenAlex allows 1..100 in its current documentation).
	openalexPage = 100
	// openalexSelect is the fields asked of listed works.
	openalexSelect = "id,doi,display_name,publication_year"
)

// LinkedWork is a work at the other end of a citation: a reference of
// the work asked for, or a work citing it.
type LinkedWork struct {
	// DOI is lower-cased, without a prefix; "" when none is known.
	DOI string
	// OpenAlexID is the short OpenAlex id ("W2741809807"); "" when the
	// work came from Crossref and OpenAlex does not know it.
	OpenAlexID string
	Title      string
	// Year is the year of publication; zero when unknown.
	Year int
	// Text is the reference as the publisher deposited it at Crossref
	// (the unstructured string), kept for a reference with neither DOI
	// nor title; "" otherwise.
	Text string
}

// Links are a work's citation links as its origins know them.
type Links struct {
	// References are the works it cites, in the order the origin lists
	// them, at most LinkLimits.MaxReferences; Citers the works citing
	// it, at most LinkLimits.MaxCiters.
	References []LinkedWork
	Citers     []LinkedWork
	// ReferencesFrom names the service the references came from:
	// "openalex" or "crossref" (OpenAlex does not know the work or lists
	// no reference of it); "" when neither knows any.
	ReferencesFrom string
	// CitersFrom is "openalex" when OpenAlex knows the work (its citing
	// works were read), else "".
	CitersFrom string
	// ReferencesTotal and CitersTotal are how many the origin counts,
	// which may be more than were read.
	ReferencesTotal, CitersTotal int
}

// LinkLimits bound what Links reads of one work. Zero fields mean the
// defaults.
type LinkLimits struct {
	// MaxReferences is the most references read; zero means
	// DefaultMaxReferences.
	MaxReferences int
	// MaxCiters is the most citing works read; zero means
	// DefaultMaxCiters.
	MaxCiters int
}

// Links returns the citation links of the work doi. OpenAlex gives the
// references (its work's referenced_works, named in batches with an
// openalex: filter) and the citing works (a cites: filter, paged with a
// cursor). When OpenAlex does not know the work or lists no reference of
// it, Crossref's reference list gives the references: those with a DOI are
// named through OpenAlex in batches (doi: filter) for their titles and
// years, those without one keep the publisher's title or text. Answers in
// the cache are used unless fresh.
//
// Errors: ErrInvalid when doi is not a DOI; ErrNotFound when neither
// OpenAlex nor Crossref knows it; ErrUpstream when a service failed (a
// failure while paging the citing works past the first page ends the
// paging instead, with what was read).
func (c *Client) Links(ctx context.Context, doi string, lim LinkLimits, fresh bool) (*Links, error) {
	d := cleanDOI(doi)
	if d == "" {
		return nil, fmt.Errorf("%w: %q is not a DOI", ErrInvalid, doi)
	}
	maxRefs := cmp.Or(lim.MaxReferences, DefaultMaxReferences)
	maxCiters := cmp.Or(lim.MaxCiters, DefaultMaxCiters)
	out := &Links{}
	ow, err := c.openalexLinks(ctx, d, fresh)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("origin: links of %s: %w", d, err)
	default:
		id := shortID(ow.ID)
		if id == "" {
			return nil, fmt.Errorf("%w: openalex: work %s has no usable id %q", ErrUpstream, d, ow.ID)
		}
		refs := make([]string, 0, len(ow.ReferencedWorks))
		for _, r := range ow.ReferencedWorks {
			if s := shortID(r); s != "" {
				refs = append(refs, s)
			}
		}
		if len(refs) > 0 {
			out.ReferencesFrom, out.ReferencesTotal = "openalex", len(refs)
			if out.References, err = c.namedByOpenAlexID(ctx, refs[:min(len(refs), maxRefs)], fresh); err != nil {
				return nil, fmt.Errorf("origin: references of %s: %w", d, err)
			}
		}
		if out.Citers, out.CitersTotal, err = c.citers(ctx, id, maxCiters, fresh); err != nil {
			return nil, fmt.Errorf("origin: works citing %s: %w", d, err)
		}
		out.CitersFrom = "openalex"
	}
	if out.ReferencesFrom != "" {
		return out, nil
	}
	refs, total, crErr := c.crossrefReferences(ctx, d, maxRefs, fresh)
	switch {
	case errors.Is(crErr, ErrNotFound) && ow == nil:
		return nil, fmt.Errorf("%w: links of %s", ErrNotFound, d)
	case errors.Is(crErr, ErrNotFound):
		return out, nil // OpenAlex knows the work, with no reference
	case crErr != nil:
		return nil, fmt.Errorf("origin: references of %s: %w", d, crErr)
	}
	if len(refs) > 0 {
		out.References, out.ReferencesTotal, out.ReferencesFrom = refs, total, "crossref"
	}
	return out, nil
}

// LinksReady reports whether Links may be asked now: OpenAlex, which it
// asks first, is not down (or is due for a probe); when it is, retry is
// when to ask again.
func (c *Client) LinksReady() (ready bool, retry time.Time) {
	return c.openalex.breaker.ready()
}

// openalexLinked is the part of an OpenAlex work Links reads: the same
// request as openalexWork's, so that one cached answer serves both.
type openalexLinked struct {
	ID              string   `json:"id"`
	DOI             string   `json:"doi"`
	DisplayName     string   `json:"display_name"`
	Title           string   `json:"title"`
	PublicationYear int      `json:"publication_year"`
	ReferencedWorks []string `json:"referenced_works"`
	CitedByCount    int      `json:"cited_by_count"`
}

func (ow *openalexLinked) linked() LinkedWork {
	return LinkedWork{DOI: cleanDOI(ow.DOI), OpenAlexID: shortID(ow.ID), Title: cleanTitle(cmp.Or(ow.DisplayName, ow.Title)), Year: ow.PublicationYear}
}

// openalexLinks asks OpenAlex for doi's work.
func (c *Client) openalexLinks(ctx context.Context, doi string, fresh bool) (*openalexLinked, error) {
	return getJSON(ctx, c, request{svc: c.openalex, path: "/works/doi:" + escapeDOI(doi), fresh: fresh}, func(w *openalexLinked) error {
		if w.ID == "" {
			return errors.New("no id")
		}
		return nil
	})
}

// openalexList is an OpenAlex list answer.
type openalexList struct {
	Meta struct {
		Count      int     `json:"count"`
		NextCursor *string `json:"next_cursor"`
	} `json:"meta"`
	Results []openalexLinked `json:"results"`
}

// list asks OpenAlex for one page of works matching filter.
func (c *Client) list(ctx context.Context, filter string, perPage int, cursor string, fresh bool) (*openalexList, error) {
	q := url.Values{"filter": {filter}, "per-page": {strconv.Itoa(perPage)}, "select": {openalexSelect}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return getJSON(ctx, c, request{svc: c.openalex, path: "/works", query: q, fresh: fresh}, func(l *openalexList) error {
		if l.Results == nil {
			return errors.New("no results")
		}
		return nil
	})
}

// namedByOpenAlexID returns the works ids (short OpenAlex ids) in their
// order, named by OpenAlex in batches; a work OpenAlex does not list
// keeps its id alone.
func (c *Client) namedByOpenAlexID(ctx context.Context, ids []string, fresh bool) ([]LinkedWork, error) {
	found := map[string]LinkedWork{}
	for i := 0; i < len(ids); i += openalexBatch {
		batch := ids[i:min(i+openalexBatch, len(ids))]
		l, err := c.list(ctx, "openalex:"+strings.Join(batch, "|"), len(batch), "", fresh)
		if err != nil {
			return nil, err
		}
		for _, r := range l.Results {
			if w := r.linked(); w.OpenAlexID != "" {
				found[w.OpenAlexID] = w
			}
		}
	}
	out := make([]LinkedWork, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		w, ok := found[id]
		if !ok {
			w = LinkedWork{OpenAlexID: id}
		}
		out = append(out, w)
	}
	return out, nil
}

// citers returns up to most works citing the OpenAlex work id, paging
// with a cursor, and how many OpenAlex counts. A page after the first
// that fails ends the paging with what was read.
func (c *Client) citers(ctx context.Context, id string, most int, fresh bool) ([]LinkedWork, int, error) {
	var out []LinkedWork
	total := 0
	cursor := "*"
	seen := map[string]bool{}
	for page := 0; len(out) < most; page++ {
		l, err := c.list(ctx, "cites:"+id, min(openalexPage, most-len(out)), cursor, fresh)
		if err != nil {
			if page == 0 || ctx.Err() != nil {
				return nil, 0, err
			}
			c.pagingFails.warn(c.log, "origin: paging citing works ended early (logged once until a page reads again)", "work", id, "read", len(out), "err", err)
			break
		}
		if page > 0 {
			c.pagingFails.clear()
		}
		if page == 0 {
			total = l.Meta.Count
		}
		for _, r := range l.Results {
			w := r.linked()
			if w.OpenAlexID == "" || seen[w.OpenAlexID] || len(out) >= most {
				continue
			}
			seen[w.OpenAlexID] = true
			out = append(out, w)
		}
		if l.Meta.NextCursor == nil || *l.Meta.NextCursor == "" || *l.Meta.NextCursor == cursor || len(l.Results) == 0 {
			break
		}
		cursor = *l.Meta.NextCursor
	}
	return out, max(total, len(out)), nil
}

// crossrefReference is one entry of a Crossref work's reference list.
type crossrefReference struct {
	DOI          string `json:"DOI"`
	ArticleTitle string `json:"article-title"`
	VolumeTitle  string `json:"volume-title"`
	SeriesTitle  string `json:"series-title"`
	Year         string `json:"year"`
	Unstructured string `json:"unstructured"`
}

// crossrefReferenceList is the part of a Crossref work record read for its
// references.
type crossrefReferenceList struct {
	DOI       string              `json:"DOI"`
	Reference []crossrefReference `json:"reference"`
}

// crossrefReferences returns up to most references of doi from
// Crossref's record, and how many it lists. Those with a DOI are named
// through OpenAlex (doi: filter) when they lack a title; an OpenAlex
// failure then leaves them as Crossref has them.
func (c *Client) crossrefReferences(ctx context.Context, doi string, most int, fresh bool) ([]LinkedWork, int, error) {
	env, err := getJSON(ctx, c, request{svc: c.crossref, path: "/works/" + escapeDOI(doi), fresh: fresh},
		func(env *crossrefMessage[crossrefReferenceList]) error {
			if env.Message == nil || env.Message.DOI == "" {
				return errors.New("no message with a DOI")
			}
			return nil
		})
	if err != nil {
		return nil, 0, err
	}
	refs := env.Message.Reference
	total := len(refs)
	var out []LinkedWork
	var unnamed []string
	seen := map[string]bool{}
	for _, r := range refs {
		if len(out) >= most {
			break
		}
		w := LinkedWork{DOI: cleanDOI(r.DOI), Title: cleanTitle(cmp.Or(r.ArticleTitle, r.VolumeTitle, r.SeriesTitle))}
		if y, err := strconv.Atoi(strings.TrimSpace(r.Year)); err == nil && y > 0 && y < 10000 {
			w.Year = y
		}
		if w.DOI != "" && seen[w.DOI] {
			continue
		}
		if w.DOI != "" {
			seen[w.DOI] = true
		}
		if w.DOI == "" && w.Title == "" {
			w.Text = strings.Join(strings.Fields(r.Unstructured), " ")
			if w.Text == "" {
				continue
			}
		}
		if w.DOI != "" && w.Title == "" && !strings.ContainsAny(w.DOI, "|,") {
			unnamed = append(unnamed, w.DOI)
		}
		out = append(out, w)
	}
	named, err := c.namedByDOI(ctx, unnamed, fresh)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		c.namingFails.warn(c.log, "origin: naming crossref references at openalex failed (logged once until it works again)", "doi", doi, "err", err)
	} else if len(unnamed) > 0 {
		c.namingFails.clear()
	}
	for i, w := range out {
		if n, ok := named[w.DOI]; ok { // named has no "" key
			out[i].OpenAlexID, out[i].Title = n.OpenAlexID, n.Title
			out[i].Year = cmp.Or(w.Year, n.Year)
		}
	}
	return out, total, nil
}

// namedByDOI names the works dois through OpenAlex in batches, by DOI.
func (c *Client) namedByDOI(ctx context.Context, dois []string, fresh bool) (map[string]LinkedWork, error) {
	out := map[string]LinkedWork{}
	for i := 0; i < len(dois); i += openalexBatch {
		batch := dois[i:min(i+openalexBatch, len(dois))]
		l, err := c.list(ctx, "doi:"+strings.Join(batch, "|"), len(batch), "", fresh)
		if err != nil {
			return out, err
		}
		for _, r := range l.Results {
			if w := r.linked(); w.DOI != "" {
				out[w.DOI] = w
			}
		}
	}
	return out, nil
}

// shortID returns the short form ("W123") of an OpenAlex work id given
// as a URL (https://openalex.org/W123) or short, or "" when s is neither.
func shortID(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.ToUpper(s)
	if len(s) < 2 || s[0] != 'W' {
		return ""
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return s
}
