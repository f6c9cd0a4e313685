package extract

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The section types SectionType returns, plus "table" and "sheet", which
// extractors give to tabular sections.
const (
	TypeAbstract     = "abstract"
	TypeIntroduction = "introduction"
	TypeBackground   = "background"
	TypeMethods      = "methods"
	TypeResults      = "results"
	TypeDiscussion   = "discussion"
	TypeConclusion   = "conclusion"
	TypeLimitations  = "limitations"
	TypeReferences   = "references"
	TypeBody         = "body"
	TypeTable        = "table"
	TypeSheet        = "sheet"
)

// sectionCues maps heading words to types; the longest cue found among a
// heading's words decides, the earlier type on a tie.
var sectionCues = []struct {
	typ  string
	cues []string
}{
	{TypeBody, []string{"acknowledgment", "acknowledgments", "acknowledgement", "acknowledgements",
		"funding", "appendix", "appendices", "supplementary", "supporting information",
		"author contributions", "competing interests", "conflict of interest", "conflicts of interest",
		"data availability", "ethics statement", "abbreviations", "table of contents", "contents"}},
	{TypeReferences, []string{"references", "reference", "bibliography", "works cited",
		"literature cited", "citations", "cited literature"}},
	{TypeAbstract, []string{"abstract", "summary", "executive summary", "synopsis", "tl;dr", "highlights"}},
	{TypeLimitations, []string{"limitations", "limitation", "threats to validity", "caveats", "shortcomings"}},
	{TypeConclusion, []string{"conclusion", "conclusions", "concluding remarks", "future work",
		"final remarks", "closing remarks", "outlook"}},
	{TypeResults, []string{"results", "result", "findings", "evaluation", "experimental results",
		"performance", "outcomes", "main results", "analysis"}},
	{TypeDiscussion, []string{"discussion", "discussions", "implications", "interpretation"}},
	{TypeMethods, []string{"methods", "method", "methodology", "methodologies", "materials and methods",
		"materials", "experimental setup", "experimental design", "experiments", "experiment",
		"study design", "procedure", "procedures", "participants", "approach", "data", "dataset",
		"datasets", "data collection", "implementation", "model", "models", "setup", "statistical analysis",
		"protocol", "system boundary", "functional unit", "measures", "sample"}},
	{TypeBackground, []string{"background", "related work", "related works", "literature review",
		"prior work", "previous work", "preliminaries", "related research", "state of the art",
		"theoretical framework", "theory"}},
	{TypeIntroduction, []string{"introduction", "intro", "motivation", "purpose", "aims", "objectives"}},
}

// SectionType returns the type of a section from its heading or heading
// path ("2 Methods > 2.1 Data"): the most specific component with a known
// cue decides. Numbering and case are ignored: "2. Materials and Methods"
// is methods, "Related work" background, "References" and "Bibliography"
// references. Anything else, including "", is body.
func SectionType(heading string) string {
	parts := strings.Split(heading, ">")
	for i := len(parts) - 1; i >= 0; i-- {
		if t := headingType(parts[i]); t != "" {
			return t
		}
	}
	return TypeBody
}

// cue is one entry of sectionCues, split into words.
type cue struct {
	typ   string
	words []string
	order int // position of the type in sectionCues, for ties
	n     int // length of the cue text
}

// cuesByFirst indexes the cues by their first word.
var cuesByFirst = func() map[string][]cue {
	m := map[string][]cue{}
	for i, c := range sectionCues {
		for _, text := range c.cues {
			w := strings.Fields(text)
			m[w[0]] = append(m[w[0]], cue{c.typ, w, i, len(text)})
		}
	}
	return m
}()

// headingType types one heading; "" when no cue matches.
func headingType(h string) string {
	words := headingWords(h)
	if len(words) == 0 || len(words) > 12 {
		return ""
	}
	best := cue{order: len(sectionCues)}
	for i, w := range words {
		for _, c := range cuesByFirst[w] {
			if len(c.words) > len(words)-i || c.n < best.n || c.n == best.n && c.order >= best.order {
				continue
			}
			match := true
			for k := 1; k < len(c.words); k++ {
				if words[i+k] != c.words[k] {
					match = false
					break
				}
			}
			if match {
				best = c
			}
		}
	}
	return best.typ
}

// headingWords lower-cases h, drops a leading section number ("2.1",
// "IV.", "A.") and splits it into words.
func headingWords(h string) []string {
	h = strings.ToLower(strings.TrimSpace(h))
	if mayHaveNumber(h) {
		h = numberPrefix.ReplaceAllString(h, "")
	}
	return strings.FieldsFunc(h, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == ';')
	})
}

// mayHaveNumber is a cheap test before numberPrefix: the first word holds
// a digit or a period, or names a section, chapter or part.
func mayHaveNumber(h string) bool {
	first := h
	if i := strings.IndexByte(h, ' '); i >= 0 {
		first = h[:i]
	}
	return strings.ContainsAny(first, "0123456789.") || first == "section" || first == "chapter" || first == "part" ||
		len(first) == 1
}

var numberPrefix = regexp.MustCompile(`^(?:(?:section|chapter|part)\s+)?(?:\d+(?:\.\d+)*\.?|[ivxlc]+\.|[a-h]\.|[a-h]\d*(?:\.\d+)+\.?)\s+`)

// headingNumber returns the leading section number of a heading ("2.1" for
// "2.1 Data") and its depth (2), or "" and 0.
func headingNumber(h string) (string, int) {
	m := headingNum.FindStringSubmatch(strings.TrimSpace(h))
	if m == nil {
		return "", 0
	}
	n := strings.TrimSuffix(m[1], ".")
	return n, strings.Count(n, ".") + 1
}

var headingNum = regexp.MustCompile(`^((?:\d{1,2}|[A-H])(?:\.\d{1,2}){0,4}\.?)\s+\p{L}`)

// headingPath keeps a stack of headings by level and renders the path.
type headingPath struct {
	levels []string // levels[i] is the heading at depth i+1, "" if none
}

// set records heading h at depth level (1-based) and drops deeper ones.
func (p *headingPath) set(level int, h string) {
	if level < 1 {
		level = 1
	}
	if level > 9 {
		level = 9
	}
	for len(p.levels) < level {
		p.levels = append(p.levels, "")
	}
	p.levels = p.levels[:level]
	p.levels[level-1] = strings.TrimSpace(h)
}

func (p *headingPath) String() string {
	var parts []string
	for _, l := range p.levels {
		if l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " > ")
}

// doiPattern matches a DOI (Crossref's recommended pattern, widened).
var doiPattern = regexp.MustCompile(`(?i)\b10\.\d{4,9}/[^\s"'<>{}\[\]|\\^` + "`" + `]+`)

// findDOI returns the first DOI in s, trimmed of trailing punctuation, or "".
func findDOI(s string) string {
	m := doiPattern.FindString(s)
	if m == "" {
		return ""
	}
	m = strings.TrimRight(m, ".,;:!?")
	for strings.HasSuffix(m, ")") && strings.Count(m, "(") < strings.Count(m, ")") {
		m = strings.TrimRight(strings.TrimSuffix(m, ")"), ".,;:")
	}
	return m
}

// cleanDOI extracts a DOI from a metadata value such as
// "https://doi.org/10.1/x" or "doi:10.1/x"; "" if there is none.
func cleanDOI(v string) string {
	return findDOI(v)
}

// yearPattern finds a plausible year in a date string.
var yearPattern = regexp.MustCompile(`\b(1[5-9]\d\d|20\d\d)\b`)

// parseYear returns the first plausible year in s (1500..next year), or 0.
func parseYear(s string) int {
	for _, m := range yearPattern.FindAllString(s, 3) {
		y, _ := strconv.Atoi(m)
		if y >= 1500 && y <= time.Now().Year()+1 {
			return y
		}
	}
	return 0
}

// splitAuthors splits an author metadata field on ";", " and ", "&" and,
// when it is not "Last, First" form, on ",".
func splitAuthors(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	var parts []string
	if strings.Contains(s, ";") {
		parts = strings.Split(s, ";")
	} else {
		s = strings.ReplaceAll(s, " & ", ", ")
		s = strings.ReplaceAll(s, " and ", ", ")
		parts = strings.Split(s, ",")
		// "Lo, Kyle" is one author, not two.
		if len(parts) == 2 && !strings.Contains(strings.TrimSpace(parts[0]), " ") && !strings.Contains(strings.TrimSpace(parts[1]), " ") {
			parts = []string{s}
		}
	}
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" && len(out) < 100 {
			out = append(out, clip(p, 100))
		}
	}
	return out
}
