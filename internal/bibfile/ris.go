package bibfile

import (
	"bufio"
	"net/url"
	"strings"
)

// parseRIS reads RIS: "TY  - JOUR" opens a record, "ER  - " closes it;
// a line that is not a tag continues the previous tag's value.
func parseRIS(s string) ([]Entry, error) {
	var out []Entry
	var e *Entry
	var last string
	sc := bufio.NewScanner(strings.NewReader(strings.TrimPrefix(s, "\ufeff")))
	sc.Buffer(make([]byte, 64<<10), maxFieldBytes)
	line := 0
	for sc.Scan() {
		line++
		l := strings.TrimRight(sc.Text(), " \r")
		tag, val, ok := risTag(l)
		if !ok {
			if e != nil && strings.TrimSpace(l) != "" {
				risAdd(e, last, strings.TrimSpace(l), true)
			}
			continue
		}
		switch {
		case tag == "TY":
			if e != nil {
				return nil, &Error{Format: RIS, Line: line, Reason: "TY before the previous record's ER"}
			}
			e = &Entry{Type: val}
		case e == nil:
			return nil, &Error{Format: RIS, Line: line, Reason: tag + " outside a record (TY … ER)"}
		case tag == "ER":
			out = append(out, *e)
			e = nil
		default:
			risAdd(e, tag, val, false)
		}
		last = tag
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{Format: RIS, Line: line, Reason: err.Error()}
	}
	if e != nil {
		return nil, &Error{Format: RIS, Line: line, Reason: "the last record has no ER"}
	}
	return out, nil
}

// risTag splits "XX  - value".
func risTag(l string) (tag, val string, ok bool) {
	if len(l) < 5 || l[2:4] != "  " || l[4] != '-' {
		return "", "", false
	}
	tag = l[:2]
	for i := range 2 {
		if c := tag[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "", "", false
		}
	}
	return tag, strings.TrimSpace(l[5:]), true
}

// risAdd sets the field of tag; more continues a previous value.
func risAdd(e *Entry, tag, val string, more bool) {
	join := func(dst *string) {
		if more && *dst != "" {
			*dst += " " + val
		} else if *dst == "" {
			*dst = val
		}
	}
	switch tag {
	case "ID":
		e.Key = val
	case "TI", "T1":
		join(&e.Title)
	case "AU", "A1":
		if more && len(e.Authors) > 0 {
			e.Authors[len(e.Authors)-1] += " " + val
		} else if val != "" {
			e.Authors = append(e.Authors, personName(val))
		}
	case "PY", "Y1", "DA":
		if e.Year == 0 {
			e.Year = yearOf(val)
		}
	case "DO":
		join(&e.DOI)
	case "JO", "JF", "T2", "JA", "BT":
		if e.Venue == "" {
			e.Venue = val
		}
	case "AB", "N2":
		join(&e.Abstract)
	case "UR":
		if e.URL == "" {
			e.URL = val
		}
	case "KW":
		if val != "" {
			e.Tags = append(e.Tags, val)
		}
	case "L1", "L4":
		if p := filePath(val); p != "" {
			e.Files = append(e.Files, p)
		}
	}
}

// filePath turns a file:// URL into a path and leaves a path as it is;
// other URLs (internal-pdf://, http://) give "".
func filePath(v string) string {
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		if u.Scheme != "file" {
			return ""
		}
		return u.Path
	}
	return v
}
