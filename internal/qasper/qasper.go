// Package qasper reads the QASPER papers and questions of the evaluation
// (../shared/eval/qasper; its README defines the measure), renders each
// paper as the Markdown a reader would hand over, lists the sentences of
// its floor and scores recalled text against the annotators' evidence.
//
// Figures and tables (figures_and_tables) are left out of the Markdown and
// of the floor: the measure drops the evidence that cites them (strings
// starting "FLOAT SELECTED"), so no counted question needs them, and a
// caption without its table is not what a reader would hand over.
//
// Paragraphs are written with their white space collapsed (a line break
// inside a Markdown paragraph reads as a space anyway), and empty ones are
// left out. A section name's empty parts ("" or " ::: ", one paper has
// them) get no heading, so their paragraphs follow the heading before.
package qasper

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/papermem/papermem/internal/chunk"
)

// DefaultDir is where the data lies relative to the repository root.
const DefaultDir = "../shared/eval/qasper"

// File is the name of the data file in its directory.
const File = "qasper-shared.json.gz"

// Paper is a paper of the data set as it ships.
type Paper struct {
	ID       string    `json:"-"` // arXiv id, the key of the data's object
	Title    string    `json:"title"`
	Abstract string    `json:"abstract"`
	Sections []Section `json:"full_text"`
	QAs      []QA      `json:"qas"`
}

// Section is a section of a paper's full text. Nested names join their
// parts with " ::: " ("Datasets ::: AntiScam Dataset").
type Section struct {
	Name       string   `json:"section_name"`
	Paragraphs []string `json:"paragraphs"`
}

// QA is a question with every annotator's answer.
type QA struct {
	ID       string `json:"question_id"`
	Question string `json:"question"`
	Answers  []struct {
		Answer Answer `json:"answer"`
	} `json:"answers"`
}

// Answer is one annotator's answer: the paragraphs (Evidence) and
// sentences (Highlighted) that answer the question.
type Answer struct {
	Unanswerable bool     `json:"unanswerable"`
	Evidence     []string `json:"evidence"`
	Highlighted  []string `json:"highlighted_evidence"`
}

// Load reads File in dir: the papers, sorted by id.
func Load(dir string) ([]Paper, error) {
	path := filepath.Join(dir, File)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var byID map[string]Paper
	if err := json.NewDecoder(zr).Decode(&byID); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]Paper, 0, len(byID))
	for id, p := range byID {
		p.ID = id
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Paper) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// DOI is the paper's DOI, 10.48550/arXiv.<id>.
func (p *Paper) DOI() string { return "10.48550/arXiv." + p.ID }

// collapse folds runs of white space to one space and trims the ends.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// namePath splits a section name into its parts, white space collapsed.
func namePath(name string) []string {
	parts := strings.Split(name, ":::")
	for i := range parts {
		parts[i] = collapse(parts[i])
	}
	return parts
}

// Markdown renders the paper as a reader would hand it over: "# title",
// "## Abstract" and the abstract, then the sections in order, a name's
// parts as ever deeper headings ("A ::: B" is "## A", then "### B"; at
// most "######"), paragraphs apart by blank lines. When the path changes,
// the headings from the first part that differs are written, a parent's
// too when it has no paragraphs of its own; a section that returns to a
// parent repeats the parent's heading.
func (p *Paper) Markdown() string {
	var b strings.Builder
	b.WriteString("# " + collapse(p.Title) + "\n\n## Abstract\n\n")
	if a := collapse(p.Abstract); a != "" {
		b.WriteString(a + "\n\n")
	}
	prev := []string{"Abstract"}
	for _, s := range p.Sections {
		path := namePath(s.Name)
		k := 0
		for k < len(path) && k < len(prev) && path[k] == prev[k] {
			k++
		}
		if k == len(path) && k < len(prev) {
			k-- // back to a parent: its paragraphs must follow its heading
		}
		for d := k; d < len(path); d++ {
			if path[d] != "" {
				b.WriteString(strings.Repeat("#", min(d+2, 6)) + " " + path[d] + "\n\n")
			}
		}
		for _, para := range s.Paragraphs {
			if para = collapse(para); para != "" {
				b.WriteString(para + "\n\n")
			}
		}
		prev = path
	}
	return b.String()
}

// Sentence is a row of the floor: a sentence and the name of its section
// as the data gives it ("Abstract" for the abstract's).
type Sentence struct {
	Section, Text string
}

// Sentences splits the abstract and every paragraph, as Markdown writes
// them, into sentences (chunk.Sentences), in order.
func (p *Paper) Sentences() []Sentence {
	var out []Sentence
	add := func(section, para string) {
		for _, s := range chunk.Sentences(collapse(para)) {
			out = append(out, Sentence{section, s.Text})
		}
	}
	add("Abstract", p.Abstract)
	for _, s := range p.Sections {
		for _, para := range s.Paragraphs {
			add(s.Name, para)
		}
	}
	return out
}

// Question is a question the measure counts, with the annotators it uses.
type Question struct {
	ID, Text   string
	Annotators []Annotation
}

// Annotation is what one annotator marked, less figure and table captions:
// paragraphs (Evidence, never empty) and sentences (Highlighted).
type Annotation struct {
	Evidence, Highlighted []string
}

// IsFloat reports whether an evidence string is a figure's or a table's
// caption.
func IsFloat(s string) bool { return strings.HasPrefix(s, "FLOAT SELECTED") }

// text drops captions and blank strings from evidence.
func text(evidence []string) []string {
	var out []string
	for _, e := range evidence {
		if !IsFloat(e) && strings.TrimSpace(e) != "" {
			out = append(out, e)
		}
	}
	return out
}

// Questions returns the questions the measure counts: those with an
// annotator who found an answer and marked paragraphs of text as its
// evidence. Only such annotators are kept.
func (p *Paper) Questions() []Question {
	var out []Question
	for _, qa := range p.QAs {
		q := Question{ID: qa.ID, Text: qa.Question}
		for _, a := range qa.Answers {
			if ev := text(a.Answer.Evidence); !a.Answer.Unanswerable && len(ev) > 0 {
				q.Annotators = append(q.Annotators, Annotation{ev, text(a.Answer.Highlighted)})
			}
		}
		if len(q.Annotators) > 0 {
			out = append(out, q)
		}
	}
	return out
}

// IsHeading reports whether an evidence string is the name of one of the
// paper's sections or of one of its parts: some annotators marked headings,
// which no recalled span of body text contains.
func (p *Paper) IsHeading(evidence string) bool {
	e := collapse(evidence)
	for _, s := range p.Sections {
		if collapse(s.Name) == e || slices.Contains(namePath(s.Name), e) {
			return true
		}
	}
	return false
}
