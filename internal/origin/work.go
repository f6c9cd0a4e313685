package origin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Work is what the services know of a DOI.
type Work struct {
	// DOI is the DOI asked for, lower-cased, without a doi.org prefix.
	DOI   string
	Title string
	// Authors are "Given Family" (or an organisation's name), in order.
	Authors []string
	// Year is the year of publication; zero when unknown.
	Year int
	// Container is the journal, proceedings or other venue.
	Container string
	// Type is Crossref's type of work, such as "journal-article",
	// "proceedings-article" or "posted-content" (OpenAlex's type_crossref
	// and Unpaywall's genre use the same words).
	Type string
	// License is the license's URL as Crossref records it (the published
	// version's, else the first), else Unpaywall's or OpenAlex's short name
	// for it, such as "cc-by"; empty when none is known.
	License string
	// OA reports whether an open-access copy is known; PDFURL is the best
	// open-access PDF's URL, when one is known. An arXiv DOI is always OA,
	// its PDF on arXiv when no other is known.
	OA     bool
	PDFURL string
	// Retracted reports whether Crossref records a retraction, withdrawal
	// or removal of the work, or OpenAlex marks it retracted.
	Retracted bool
	// Notices are Crossref's updates to the work (retractions,
	// corrections, expressions of concern, …), once each.
	Notices []Notice
	// Partial reports that a service that would have added to the Work
	// failed (rather than not knowing the DOI), so some fields may be
	// missing: open access when Unpaywall failed, Crossref's metadata and
	// notices when Crossref failed and OpenAlex or Unpaywall answered.
	Partial bool
}

// Notice is an update published about a work, as Crossref's updated-by
// records it.
type Notice struct {
	// Type is Crossref's type of update, as given: "retraction",
	// "correction", "expression_of_concern", "erratum", "withdrawal", …
	Type string
	// DOI is the notice's own DOI, lower-cased; empty when not recorded.
	DOI string
	// Date is when the update was made: "YYYY-MM-DD", or "YYYY-MM" or
	// "YYYY" when only that much is recorded; empty when unknown.
	Date string
	// Source is who recorded it: "publisher" or "retraction-watch" (as
	// Crossref gives it); empty when not said.
	Source string
}

// retractions are the Crossref update types that take a work back.
var retractions = map[string]bool{"retraction": true, "withdrawal": true, "removal": true}

// Work looks doi up. doi may carry a "doi:" or doi.org prefix. Crossref
// gives the metadata and notices; when Crossref does not know the DOI or
// fails, OpenAlex gives the metadata and its retraction flag instead, and
// when neither answers, Unpaywall's record is used. Unpaywall, asked at
// the same time as Crossref (with Options.Contact as its email when set),
// gives the open-access fields. Answers in the cache are used without a request.
//
// Errors: ErrInvalid when doi is not a DOI; ErrNotFound when every service
// asked answered 404; ErrUpstream when no service answered and one failed.
// When some service answered, Work returns what is known with a nil error
// and sets Partial if another failed.
func (c *Client) Work(ctx context.Context, doi string) (*Work, error) {
	return c.work(ctx, doi, false)
}

// WorkFresh is Work without reading the cache: each service Work
// consults is asked again, and the cache is updated with the answers. It is how a stored
// paper's retraction status is refreshed.
func (c *Client) WorkFresh(ctx context.Context, doi string) (*Work, error) {
	return c.work(ctx, doi, true)
}

func (c *Client) work(ctx context.Context, doi string, fresh bool) (*Work, error) {
	d := cleanDOI(doi)
	if d == "" {
		return nil, fmt.Errorf("%w: %q is not a DOI", ErrInvalid, doi)
	}
	upWait := c.unpaywallAsync(ctx, d, fresh)
	cr, crErr := c.crossrefWork(ctx, d, fresh)
	var oa *openalexWork
	var oaErr error
	if crErr != nil {
		oa, oaErr = c.openalexWork(ctx, d, fresh)
	}
	up, upErr := upWait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("origin: work %s: %w", d, err)
	}

	w := &Work{DOI: d}
	switch {
	case cr != nil:
		cr.fill(w)
	case oa != nil:
		oa.fill(w)
	case up != nil:
		up.fill(w)
	default:
		if failed := failures(crErr, oaErr, upErr); failed != nil {
			return nil, fmt.Errorf("origin: work %s: %w", d, failed)
		}
		return nil, fmt.Errorf("%w: work %s", ErrNotFound, d)
	}
	w.Partial = failures(crErr, oaErr, upErr) != nil
	// Open access: Unpaywall's word first, then OpenAlex's, then arXiv's.
	if up != nil {
		w.OA = up.IsOA
		if urls := up.pdfURLs(); len(urls) > 0 {
			w.PDFURL = urls[0]
		}
		if w.License == "" && up.BestOALocation != nil {
			w.License = up.BestOALocation.License
		}
	}
	if oa != nil {
		oa.fillOA(w)
	}
	if id := ArxivID(d); id != "" {
		w.OA = true
		if w.PDFURL == "" {
			w.PDFURL = c.arxivPDF(id)
		}
	}
	return w, nil
}

// failures joins the errors that are not ErrNotFound, or is nil when
// there are none: the services that failed rather than not knowing.
func failures(errs ...error) error {
	var failed []error
	for _, err := range errs {
		if err != nil && !errors.Is(err, ErrNotFound) {
			failed = append(failed, err)
		}
	}
	return errors.Join(failed...)
}

// crossrefWork asks Crossref for doi's record.
func (c *Client) crossrefWork(ctx context.Context, doi string, fresh bool) (*crossrefWork, error) {
	env, err := getJSON(ctx, c, request{svc: c.crossref, path: "/works/" + escapeDOI(doi), fresh: fresh},
		func(env *crossrefMessage[crossrefWork]) error {
			if env.Message == nil || env.Message.DOI == "" {
				return errors.New("no message with a DOI")
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	return env.Message, nil
}

// openalexWork asks OpenAlex for doi's record.
func (c *Client) openalexWork(ctx context.Context, doi string, fresh bool) (*openalexWork, error) {
	return getJSON(ctx, c, request{svc: c.openalex, path: "/works/doi:" + escapeDOI(doi), fresh: fresh}, func(w *openalexWork) error {
		if w.ID == "" {
			return errors.New("no id")
		}
		return nil
	})
}

// unpaywallWork asks Unpaywall for doi's record.
func (c *Client) unpaywallWork(ctx context.Context, doi string, fresh bool) (*unpaywallWork, error) {
	return getJSON(ctx, c, request{svc: c.unpaywall, path: "/v2/" + escapeDOI(doi), fresh: fresh}, func(w *unpaywallWork) error {
		if w.DOI == "" {
			return errors.New("no doi")
		}
		return nil
	})
}

// crossrefWork is the part of a Crossref work record ("message") read.
type crossrefWork struct {
	DOI      string   `json:"DOI"`
	Title    []string `json:"title"`
	Subtitle []string `json:"subtitle"`
	Author   []struct {
		Given  string `json:"given"`
		Family string `json:"family"`
		Name   string `json:"name"`
	} `json:"author"`
	Issued          dateParts `json:"issued"`
	PublishedPrint  dateParts `json:"published-print"`
	PublishedOnline dateParts `json:"published-online"`
	Published       dateParts `json:"published"`
	Created         dateParts `json:"created"`
	ContainerTitle  []string  `json:"container-title"`
	Type            string    `json:"type"`
	License         []struct {
		URL            string `json:"URL"`
		ContentVersion string `json:"content-version"`
	} `json:"license"`
	UpdatedBy []struct {
		DOI     string    `json:"DOI"`
		Type    string    `json:"type"`
		Source  string    `json:"source"`
		Updated dateParts `json:"updated"`
	} `json:"updated-by"`
	Score float64 `json:"score"`
}

func (cw *crossrefWork) fill(w *Work) {
	w.Title = cleanTitle(first(cw.Title))
	for _, a := range cw.Author {
		if n := strings.TrimSpace(strings.TrimSpace(a.Given) + " " + strings.TrimSpace(a.Family)); n != "" {
			w.Authors = append(w.Authors, n)
		} else if n := strings.TrimSpace(a.Name); n != "" {
			w.Authors = append(w.Authors, n)
		}
	}
	for _, d := range []dateParts{cw.Issued, cw.PublishedPrint, cw.PublishedOnline, cw.Published, cw.Created} {
		if p := d.parts(); len(p) > 0 {
			w.Year = p[0]
			break
		}
	}
	w.Container = cleanTitle(first(cw.ContainerTitle))
	w.Type = cw.Type
	for _, l := range cw.License {
		if l.ContentVersion == "vor" && l.URL != "" {
			w.License = l.URL
			break
		}
	}
	if w.License == "" {
		for _, l := range cw.License {
			if l.URL != "" {
				w.License = l.URL
				break
			}
		}
	}
	seen := map[[2]string]bool{}
	for _, u := range cw.UpdatedBy {
		n := Notice{
			Type:   strings.TrimSpace(u.Type),
			DOI:    strings.ToLower(strings.TrimSpace(u.DOI)),
			Date:   u.Updated.date(),
			Source: u.Source,
		}
		if n.Type == "" {
			continue
		}
		if retractions[strings.ToLower(n.Type)] {
			w.Retracted = true
		}
		// The publisher's record and Retraction Watch's may both list a
		// notice; keep the first.
		k := [2]string{strings.ToLower(n.Type), n.DOI}
		if n.DOI != "" && seen[k] {
			continue
		}
		seen[k] = true
		w.Notices = append(w.Notices, n)
	}
}

// openalexWork is the part of an OpenAlex work read.
type openalexWork struct {
	ID              string `json:"id"`
	DOI             string `json:"doi"`
	Title           string `json:"title"`
	DisplayName     string `json:"display_name"`
	PublicationYear int    `json:"publication_year"`
	Authorships     []struct {
		Author struct {
			DisplayName string `json:"display_name"`
		} `json:"author"`
		RawAuthorName string `json:"raw_author_name"`
	} `json:"authorships"`
	PrimaryLocation *struct {
		Source *struct {
			DisplayName string `json:"display_name"`
		} `json:"source"`
		License string `json:"license"`
	} `json:"primary_location"`
	OpenAccess struct {
		IsOA  bool   `json:"is_oa"`
		OAURL string `json:"oa_url"`
	} `json:"open_access"`
	BestOALocation *struct {
		PDFURL  string `json:"pdf_url"`
		License string `json:"license"`
	} `json:"best_oa_location"`
	IsRetracted  bool   `json:"is_retracted"`
	Type         string `json:"type"`
	TypeCrossref string `json:"type_crossref"`
}

func (ow *openalexWork) fill(w *Work) {
	w.Title = cleanTitle(cmp.Or(ow.Title, ow.DisplayName))
	for _, a := range ow.Authorships {
		if n := strings.TrimSpace(cmp.Or(a.Author.DisplayName, a.RawAuthorName)); n != "" {
			w.Authors = append(w.Authors, n)
		}
	}
	w.Year = ow.PublicationYear
	if pl := ow.PrimaryLocation; pl != nil {
		if pl.Source != nil {
			w.Container = cleanTitle(pl.Source.DisplayName)
		}
		w.License = pl.License
	}
	w.Type = cmp.Or(ow.TypeCrossref, ow.Type)
}

// fillOA adds OpenAlex's open-access and retraction word to w.
func (ow *openalexWork) fillOA(w *Work) {
	w.OA = w.OA || ow.OpenAccess.IsOA
	if b := ow.BestOALocation; b != nil {
		if w.PDFURL == "" {
			w.PDFURL = b.PDFURL
		}
		if w.License == "" {
			w.License = b.License
		}
	}
	w.Retracted = w.Retracted || ow.IsRetracted
}

// unpaywallWork is the part of an Unpaywall record read.
type unpaywallWork struct {
	DOI         string `json:"doi"`
	IsOA        bool   `json:"is_oa"`
	Title       string `json:"title"`
	Year        int    `json:"year"`
	JournalName string `json:"journal_name"`
	Genre       string `json:"genre"`
	ZAuthors    []struct {
		Given         string `json:"given"`
		Family        string `json:"family"`
		RawAuthorName string `json:"raw_author_name"`
	} `json:"z_authors"`
	BestOALocation *unpaywallLocation  `json:"best_oa_location"`
	OALocations    []unpaywallLocation `json:"oa_locations"`
}

type unpaywallLocation struct {
	URL       string `json:"url"`
	URLForPDF string `json:"url_for_pdf"`
	License   string `json:"license"`
}

func (uw *unpaywallWork) fill(w *Work) {
	w.Title = cleanTitle(uw.Title)
	for _, a := range uw.ZAuthors {
		n := strings.TrimSpace(strings.TrimSpace(a.Given) + " " + strings.TrimSpace(a.Family))
		if n = cmp.Or(n, strings.TrimSpace(a.RawAuthorName)); n != "" {
			w.Authors = append(w.Authors, n)
		}
	}
	w.Year = uw.Year
	w.Container = cleanTitle(uw.JournalName)
	w.Type = uw.Genre
}

// pdfURLs are the PDF URLs of Unpaywall's open-access locations, the
// best first.
func (uw *unpaywallWork) pdfURLs() []string {
	var urls []string
	if b := uw.BestOALocation; b != nil && b.URLForPDF != "" {
		urls = append(urls, b.URLForPDF)
	}
	for _, l := range uw.OALocations {
		if l.URLForPDF != "" {
			urls = append(urls, l.URLForPDF)
		}
	}
	return urls
}

// dateParts is Crossref's date: {"date-parts": [[2020, 5, 1]]}, with parts
// that may be missing or null.
type dateParts struct {
	DateParts [][]any `json:"date-parts"`
}

// parts are the date's year, month and day as far as known.
func (d dateParts) parts() []int {
	if len(d.DateParts) == 0 {
		return nil
	}
	var p []int
	for _, v := range d.DateParts[0] {
		var n int
		switch v := v.(type) {
		case float64:
			n = int(v)
		case string:
			var err error
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return p
			}
		default:
			return p
		}
		if n <= 0 || len(p) == 3 {
			return p
		}
		p = append(p, n)
	}
	return p
}

// date is the date as "YYYY-MM-DD", "YYYY-MM" or "YYYY", or "".
func (d dateParts) date() string {
	p := d.parts()
	switch len(p) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%04d", p[0])
	case 2:
		return fmt.Sprintf("%04d-%02d", p[0], p[1])
	default:
		return fmt.Sprintf("%04d-%02d-%02d", p[0], p[1], p[2])
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// markup matches the inline tags publishers leave in Crossref titles:
// JATS and MathML elements, HTML emphasis, sub- and superscripts.
// Attributes must be name="value", so that "a <b and c> d" is kept.
var markup = regexp.MustCompile(`(?i)</?(?:i|b|u|em|strong|sub|sup|scp|sc|span|italic|bold|mml:[a-z]+|jats:[a-z-]+)(?:\s+[a-z_:][a-z0-9_:.-]*\s*=\s*(?:"[^"]*"|'[^']*'))*\s*/?>`)

// cleanTitle removes inline markup and entities from a title and
// collapses its white space.
func cleanTitle(s string) string {
	s = html.UnescapeString(markup.ReplaceAllString(s, ""))
	return strings.Join(strings.Fields(s), " ")
}

// cleanDOI returns s as a lower-cased DOI without a "doi:" or doi.org
// prefix, or "" when s is not a DOI.
func cleanDOI(s string) string {
	d := strings.TrimSpace(s)
	low := strings.ToLower(d)
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi.org/", "doi:"} {
		if strings.HasPrefix(low, p) {
			low = strings.TrimSpace(low[len(p):])
			break
		}
	}
	prefix, suffix, ok := strings.Cut(low, "/")
	if !ok || !strings.HasPrefix(prefix, "10.") || len(prefix) < 4 || suffix == "" ||
		strings.ContainsFunc(low, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return ""
	}
	return low
}

// escapeDOI escapes each of doi's slash-separated segments for a URL
// path, keeping the slashes, as the services expect.
func escapeDOI(doi string) string {
	segs := strings.Split(doi, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// unpaywallAsync asks Unpaywall about doi while the caller asks the other
// services, and returns the function that waits for its answer.
func (c *Client) unpaywallAsync(ctx context.Context, doi string, fresh bool) func() (*unpaywallWork, error) {
	type result struct {
		w   *unpaywallWork
		err error
	}
	ch := make(chan result, 1)
	go func() {
		w, err := c.unpaywallWork(ctx, doi, fresh)
		ch <- result{w, err}
	}()
	return func() (*unpaywallWork, error) {
		r := <-ch
		return r.w, r.err
	}
}
