package papermem_test

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/internal/testenv"
)

// TestPDFClaimsAreSentences ingests each PDF of the shared test documents
// through IngestFile and reads back the stored Claims: none may start in
// the middle of a sentence (a lower-case word with no capital or digit, or
// punctuation) or end on a hyphenated fragment, and the S2ORC paper's
// tables must be stored as table passages, none of their cells as Claims,
// while the sentences its columns and pages cut are whole.
func TestPDFClaimsAreSentences(t *testing.T) {
	dir := filepath.Join(testdocs, "pdf")
	files, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil || len(files) == 0 {
		testenv.Need(t, "../shared/testdocs/pdf", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m, db := openAt(t, nil)
			if _, err := ingestPath(t, m.Workspace("default"), f, papermem.IngestOptions{}); err != nil {
				t.Fatal(err)
			}
			rows, err := db.Query(`SELECT label, section_type, text FROM nodes`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			claims := map[string]bool{}
			tables := ""
			for rows.Next() {
				var label, typ, text string
				if err := rows.Scan(&label, &typ, &text); err != nil {
					t.Fatal(err)
				}
				switch {
				case label == papermem.LabelClaim:
					claims[text] = true
					if startsMidSentence(text) {
						t.Errorf("Claim starts mid-sentence: %q", text)
					}
					if endsOnHyphen(text) {
						t.Errorf("Claim ends on a hyphen: %q", text)
					}
				case typ == "table":
					tables += text + "\n"
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if len(claims) == 0 {
				t.Fatal("no Claims stored")
			}
			if !strings.HasPrefix(filepath.Base(f), "acl2020-s2orc") {
				return
			}
			// A cell of each of the paper's nine tables (two of Table 1
			// and of Table 7).
			for _, cell := range []string{"full text full text", "yes yes yes no no no", "physics, math, CS", "No title 20k",
				"Papers w/ PDF 28.9M", "Paragraphs (body) 9.9 93.3*", "Doğan et al. (2014) Nye et al. (2018)",
				"Paper clustering 0.93 0.89", "Variational methods for conditional", "Neural Embeddings of Graphs", "PyPDF2 error 0.54M", "ELMO 1BW (800M)"} {
				if !strings.Contains(tables, cell) {
					t.Errorf("no table passage holds %q", cell)
				}
				for c := range claims {
					if strings.Contains(c, cell) {
						t.Errorf("table cell %q is in a Claim: %q", cell, c)
					}
				}
			}
			for _, whole := range []string{
				// across a column and the footnotes under it
				"Digital archives like arXiv,2 PubMed Central,3 CiteSeerX (Giles et al., 1998),4 and the ACL Anthology (Bird et al., 2008),5 are popular resources for deriving large text corpora for summarization and language modeling or, with further annotation, development of datasets for tasks like entity extraction, text classification, parsing, and discourse analysis.",
				// across a page, hyphenated
				"• Size: The resulting S2ORC pretraining corpus contains 16.4B tokens, nearly five times larger than the corpus for SCIBERT.",
				// across a column, hyphenated
				"There is an opportunity to use these tables for corpus-level results extraction and aggregation.",
				// a caption across the gutter
				"Beltagy et al. (2019) do not report standard deviation or number of runs.",
			} {
				if !claims[whole] {
					t.Errorf("no Claim %q", whole)
				}
			}
		})
	}
}

// startsMidSentence reports whether s starts with punctuation that only
// follows a word or with a lower-case word that holds no capital and no
// digit ("mRNA", "p53" and "iPhone" may open a sentence).
func startsMidSentence(s string) bool {
	s = strings.TrimLeft(s, "\"'“‘([")
	r, _ := utf8.DecodeRuneInString(s)
	if strings.ContainsRune(",;:.)]", r) {
		return true
	}
	first, _, _ := strings.Cut(s, " ")
	return unicode.IsLower(r) && first != "e.g." && first != "i.e." &&
		!strings.ContainsFunc(first, func(r rune) bool { return unicode.IsUpper(r) || unicode.IsDigit(r) })
}

// endsOnHyphen reports whether s ends with a letter and a hyphen.
func endsOnHyphen(s string) bool {
	last, n := utf8.DecodeLastRuneInString(s)
	before, _ := utf8.DecodeLastRuneInString(s[:len(s)-n])
	return (last == '-' || last == '\u2010') && unicode.IsLetter(before)
}
