package extract

import (
	"context"
	"regexp"
	"strings"
)

var (
	atxHeading   = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextH1     = regexp.MustCompile(`^ {0,3}=+[ \t]*$`)
	setextH2     = regexp.MustCompile(`^ {0,3}-+[ \t]*$`)
	fenceOpen    = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	mdImage      = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	mdLink       = regexp.MustCompile(`\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)`)
	htmlComment  = regexp.MustCompile(`(?s)<!--.*?-->`)
	frontMatterK = regexp.MustCompile(`^([A-Za-z_][\w-]*)\s*:\s*(.*)$`)
)

// extractMarkdown splits Markdown into sections by its heading hierarchy
// (ATX and setext headings). Fenced and indented code is kept as text and
// never read as headings; links and images keep their text, comments go.
func extractMarkdown(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	s, err := decodeText(Markdown, data)
	if err != nil {
		return nil, err
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	doc := &Document{}
	s = frontMatter(s, doc)
	s = htmlComment.ReplaceAllString(s, "")
	lines := strings.Split(s, "\n")

	sb := newSectionBuilder(doc)
	var path headingPath
	var para []string
	flushPara := func() {
		if len(para) > 0 {
			sb.addParagraph(strings.Join(para, "\n"))
			para = para[:0]
		}
	}
	heading := func(level int, text string) {
		flushPara()
		text = inlineText(strings.TrimSpace(text))
		if text == "" {
			return
		}
		if level == 1 && doc.Title == "" {
			doc.Title = text
		}
		path.set(level, text)
		sb.startSection(path.String())
	}

	fence := ""
	for i := 0; i < len(lines); i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		l := lines[i]
		if fence != "" {
			if strings.HasPrefix(strings.TrimLeft(l, " "), fence) && strings.Trim(strings.TrimSpace(l), fence[:1]) == "" {
				fence = ""
				flushPara()
				continue
			}
			para = append(para, l)
			continue
		}
		t := strings.TrimLeft(l, " ")
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			if m := fenceOpen.FindStringSubmatch(l); m != nil {
				flushPara()
				fence = m[1]
				continue
			}
		}
		if strings.HasPrefix(t, "#") {
			if m := atxHeading.FindStringSubmatch(l); m != nil {
				heading(len(m[1]), m[2])
				continue
			}
		}
		if strings.TrimSpace(l) == "" {
			flushPara()
			continue
		}
		// Setext: a single paragraph line underlined with = or -.
		if len(para) == 0 && i+1 < len(lines) && startsUnderline(lines[i+1]) && !strings.HasPrefix(l, "    ") && !isListItem(l) {
			if setextH1.MatchString(lines[i+1]) {
				heading(1, l)
				i++
				continue
			}
			if setextH2.MatchString(lines[i+1]) && strings.TrimSpace(lines[i+1]) != "" && len(strings.TrimSpace(lines[i+1])) >= 2 {
				heading(2, l)
				i++
				continue
			}
		}
		if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
			para = append(para, l) // indented code stays verbatim
			continue
		}
		para = append(para, inlineText(l))
	}
	flushPara()
	sb.flush()
	if doc.DOI == "" {
		doc.DOI = findDOI(head(s, 4000))
	}
	return doc, nil
}

// startsUnderline is a cheap test for a possible setext underline.
func startsUnderline(l string) bool {
	t := strings.TrimLeft(l, " ")
	return strings.HasPrefix(t, "=") || strings.HasPrefix(t, "-")
}

func isListItem(l string) bool {
	t := strings.TrimLeft(l, " ")
	return strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ")
}

// inlineText keeps the text of links and images and drops their targets.
func inlineText(s string) string {
	if !strings.Contains(s, "](") {
		return s
	}
	s = mdImage.ReplaceAllString(s, "$1")
	return mdLink.ReplaceAllString(s, "$1")
}

// frontMatter strips a leading YAML front matter block, reading title,
// doi, author(s) and date/year from it.
func frontMatter(s string, doc *Document) string {
	if !strings.HasPrefix(s, "---\n") {
		return s
	}
	end := strings.Index(s[4:], "\n---")
	if end < 0 || end > 16<<10 {
		return s
	}
	block := s[4 : 4+end]
	rest := s[4+end+4:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[i+1:]
	} else {
		rest = ""
	}
	var authors []string
	inAuthors := false
	for _, l := range strings.Split(block, "\n") {
		if inAuthors && strings.HasPrefix(strings.TrimSpace(l), "- ") {
			authors = append(authors, unquote(strings.TrimSpace(strings.TrimSpace(l)[2:])))
			continue
		}
		inAuthors = false
		m := frontMatterK.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		key, val := strings.ToLower(m[1]), unquote(strings.TrimSpace(m[2]))
		switch key {
		case "title":
			doc.Title = val
		case "doi":
			doc.DOI = cleanDOI(val)
		case "author", "authors":
			if val == "" {
				inAuthors = true
			} else {
				authors = append(authors, splitAuthors(strings.Trim(val, "[]"))...)
			}
		case "date", "year", "published":
			doc.Year = parseYear(val)
		}
	}
	if len(authors) > 0 {
		doc.Authors = authors
	}
	return rest
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
