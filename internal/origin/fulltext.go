package origin

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// FullText returns the URLs of open-access copies of doi's full text, the
// likeliest first: Unpaywall's best location's PDF, its other locations'
// PDFs, OpenAlex's best location's PDF, OpenAlex's open-access URL (which
// may be a landing page rather than a PDF), and for an arXiv DOI
// (10.48550/arXiv.<id>) {ArxivURL}/pdf/<id>; each URL once. Unpaywall and
// OpenAlex are asked at the same time, through the cache. An empty list means no open-access
// copy is known.
//
// Errors: ErrInvalid when doi is not a DOI; ErrUpstream when no URL is
// known and a service failed (rather than not knowing the DOI). When some
// URL is known, the services' failures are not reported.
func (c *Client) FullText(ctx context.Context, doi string) ([]string, error) {
	d := cleanDOI(doi)
	if d == "" {
		return nil, fmt.Errorf("%w: %q is not a DOI", ErrInvalid, doi)
	}
	upWait := c.unpaywallAsync(ctx, d, false)
	oa, oaErr := c.openalexWork(ctx, d, false)
	up, upErr := upWait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("origin: full text %s: %w", d, err)
	}

	var urls []string
	add := func(u string) {
		if u = strings.TrimSpace(u); u == "" {
			return
		}
		for _, v := range urls {
			if v == u {
				return
			}
		}
		urls = append(urls, u)
	}
	if up != nil {
		for _, u := range up.pdfURLs() {
			add(u)
		}
	}
	if oa != nil {
		if b := oa.BestOALocation; b != nil {
			add(b.PDFURL)
		}
		add(oa.OpenAccess.OAURL)
	}
	if id := ArxivID(d); id != "" {
		add(c.arxivPDF(id))
	}
	if len(urls) == 0 {
		if failed := failures(upErr, oaErr); failed != nil {
			return nil, fmt.Errorf("origin: full text %s: %w", d, failed)
		}
	}
	return urls, nil
}

// arxivPDF is the URL of arXiv's PDF of the paper with id id.
func (c *Client) arxivPDF(id string) string { return c.arxivURL + "/pdf/" + id }

var (
	// arxivNew matches an arXiv id of 2007 on: 0704.0001, 2101.00001v2.
	arxivNew = regexp.MustCompile(`^\d{4}\.\d{4,5}(v\d+)?$`)
	// arxivOld matches an older id, archive (and subject class) and
	// number: hep-th/9901001, math.GT/0309136v1.
	arxivOld = regexp.MustCompile(`(?i)^([a-z]+(?:-[a-z]+)?)(\.[a-z]{2})?/(\d{7})(v\d+)?$`)
)

// ArxivID returns the arXiv id in s, which may be an arXiv DOI
// ("10.48550/arXiv.2101.00001", with or without a "doi:" or doi.org
// prefix), an arxiv.org abs or pdf URL ("https://arxiv.org/abs/2101.00001v2",
// "arxiv.org/pdf/2101.00001.pdf"; export.arxiv.org and www.arxiv.org too)
// or "arXiv:2101.00001". The id keeps a version suffix that s has
// ("2101.00001v2"); an old-style id comes back with its archive in lower
// case and its subject class in upper ("math.GT/0309136"). ArxivID returns
// "" when s is none of these or the id is malformed.
func ArxivID(s string) string {
	s = strings.TrimSpace(s)
	if d := cleanDOI(s); d != "" {
		if rest, ok := strings.CutPrefix(d, "10.48550/arxiv."); ok {
			return arxivID(rest)
		}
		return ""
	}
	if len(s) > len("arxiv:") && strings.EqualFold(s[:len("arxiv:")], "arxiv:") {
		return arxivID(s[len("arxiv:"):])
	}
	raw := s
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	if host := strings.ToLower(u.Hostname()); host != "arxiv.org" && !strings.HasSuffix(host, ".arxiv.org") {
		return ""
	}
	p := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/"), "/")
	for _, prefix := range []string{"abs/", "pdf/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			return arxivID(strings.TrimSuffix(rest, ".pdf"))
		}
	}
	return ""
}

// arxivID returns id in its usual spelling when it is a well-formed arXiv
// id, else "".
func arxivID(id string) string {
	id = strings.TrimSpace(id)
	if low := strings.ToLower(id); arxivNew.MatchString(low) {
		return low
	}
	m := arxivOld.FindStringSubmatch(id)
	if m == nil {
		return ""
	}
	return strings.ToLower(m[1]) + strings.ToUpper(m[2]) + "/" + m[3] + strings.ToLower(m[4])
}
