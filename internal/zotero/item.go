package zotero

import (
	"regexp"
	"strconv"
	"strings"
)

// Item is an item as the API answers it in JSON (format=json): its key,
// version, meta and data. Data holds the fields papermem reads; the API
// has many more.
type Item struct {
	Key     string   `json:"key"`
	Version int64    `json:"version"`
	Meta    ItemMeta `json:"meta"`
	Data    ItemData `json:"data"`
}

// ItemMeta is an item's meta: NumChildren is nil when the API did not say.
type ItemMeta struct {
	NumChildren *int   `json:"numChildren"`
	ParsedDate  string `json:"parsedDate"`
}

// ItemData are an item's fields.
type ItemData struct {
	Key              string    `json:"key"`
	ItemType         string    `json:"itemType"`
	Title            string    `json:"title"`
	Creators         []Creator `json:"creators"`
	AbstractNote     string    `json:"abstractNote"`
	PublicationTitle string    `json:"publicationTitle"`
	ProceedingsTitle string    `json:"proceedingsTitle"`
	BookTitle        string    `json:"bookTitle"`
	ConferenceName   string    `json:"conferenceName"`
	WebsiteTitle     string    `json:"websiteTitle"`
	Publisher        string    `json:"publisher"`
	University       string    `json:"university"`
	Repository       string    `json:"repository"`
	Date             string    `json:"date"`
	DOI              string    `json:"DOI"`
	URL              string    `json:"url"`
	Extra            string    `json:"extra"`
	Tags             []Tag     `json:"tags"`
	Collections      []string  `json:"collections"`
	ParentItem       string    `json:"parentItem"`
	LinkMode         string    `json:"linkMode"`
	ContentType      string    `json:"contentType"`
	Filename         string    `json:"filename"`
	MD5              *string   `json:"md5"`
	Deleted          any       `json:"deleted"`
}

// Creator is an author, editor, …: a two-field name or a one-field Name.
type Creator struct {
	CreatorType string `json:"creatorType"`
	FirstName   string `json:"firstName"`
	LastName    string `json:"lastName"`
	Name        string `json:"name"`
}

// Tag is one of an item's tags.
type Tag struct {
	Tag string `json:"tag"`
}

// Regular reports whether the item is a work: not a note, an attachment
// or an annotation.
func (it *Item) Regular() bool {
	switch it.Data.ItemType {
	case "note", "attachment", "annotation", "":
		return false
	}
	return true
}

// Trashed reports whether the item is in the trash.
func (it *Item) Trashed() bool {
	switch d := it.Data.Deleted.(type) {
	case bool:
		return d
	case float64:
		return d != 0
	case string:
		return d != "" && d != "0"
	}
	return false
}

// PDF reports whether the item is an attachment with a PDF file (stored,
// or linked on the desktop).
func (it *Item) PDF() bool {
	return it.Data.ItemType == "attachment" && it.Data.LinkMode != "linked_url" &&
		(it.Data.ContentType == "application/pdf" || strings.HasSuffix(strings.ToLower(it.Data.Filename), ".pdf"))
}

// Authors lists the item's authors ("Given Family"), or its other
// creators when it has no authors.
func (it *Item) Authors() []string {
	var authors, others []string
	for _, c := range it.Data.Creators {
		name := strings.TrimSpace(c.Name)
		if name == "" {
			name = strings.TrimSpace(strings.TrimSpace(c.FirstName) + " " + strings.TrimSpace(c.LastName))
		}
		if name == "" {
			continue
		}
		if c.CreatorType == "author" || c.CreatorType == "" {
			authors = append(authors, name)
		} else {
			others = append(others, name)
		}
	}
	if len(authors) == 0 {
		return others
	}
	return authors
}

// year matches a four-digit year.
var year = regexp.MustCompile(`\b([0-9]{4})\b`)

// Year is the item's year, 0 when unknown.
func (it *Item) Year() int {
	for _, s := range []string{it.Meta.ParsedDate, it.Data.Date} {
		if m := year.FindStringSubmatch(s); m != nil {
			y, _ := strconv.Atoi(m[1])
			return y
		}
	}
	return 0
}

// Venue is where the item appeared: its publication, proceedings, book,
// conference, website, university, publisher or repository.
func (it *Item) Venue() string {
	d := &it.Data
	for _, v := range []string{d.PublicationTitle, d.ProceedingsTitle, d.BookTitle, d.ConferenceName, d.WebsiteTitle,
		d.University, d.Repository, d.Publisher} {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// extraDOI matches a "DOI: …" line of Extra, where Zotero keeps the DOI of
// item types without a DOI field.
var extraDOI = regexp.MustCompile(`(?im)^\s*DOI:\s*(\S+)\s*$`)

// DOI is the item's DOI as written (its field, or its Extra's DOI line),
// "" when it has none.
func (it *Item) DOI() string {
	if d := strings.TrimSpace(it.Data.DOI); d != "" {
		return d
	}
	if m := extraDOI.FindStringSubmatch(it.Data.Extra); m != nil {
		return m[1]
	}
	return ""
}

// TagNames lists the item's tags.
func (it *Item) TagNames() []string {
	var out []string
	for _, t := range it.Data.Tags {
		if s := strings.TrimSpace(t.Tag); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// MD5 is an attachment's file's MD5, "" when unknown.
func (it *Item) MD5() string {
	if it.Data.MD5 == nil {
		return ""
	}
	return *it.Data.MD5
}
