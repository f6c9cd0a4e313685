package dashboard

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/papermem/papermem"
)

// recallData is the recall playground: the form as sent and the result.
type recallData struct {
	Req          papermem.RecallRequest
	Keywords     string
	Labels       []string
	SectionTypes []string
	ScopeSignals []string
	Result       *papermem.RecallResult
	Bar          *tokenBar
}

// tokenBar draws the spans' tokens against the budget, one segment a span.
type tokenBar struct {
	Width    int
	Segments []segment
	Used     int
	Budget   int
}

type segment struct {
	X, W  float64
	Title string
}

// barWidth is the token bar's width in pixels.
const barWidth = 720

func newTokenBar(res *papermem.RecallResult, budget int) *tokenBar {
	b := &tokenBar{Width: barWidth, Used: res.TotalTokens, Budget: budget}
	x := 0.0
	for i, s := range res.Spans {
		w := float64(s.Tokens) / float64(budget) * barWidth
		b.Segments = append(b.Segments, segment{X: x, W: w, Title: fmt.Sprintf("span %d: %d tokens", i+1, s.Tokens)})
		x += w
	}
	return b
}

func (h *handler) recallPage(w http.ResponseWriter, r *http.Request, v *viewer) error {
	d := newRecallData(papermem.RecallRequest{BudgetTokens: papermem.DefaultBudgetTokens, Label: papermem.LabelAny})
	h.render(w, r, http.StatusOK, "recall", &page{Title: "Recall playground", Nav: "recall", Viewer: v, Data: d})
	return nil
}

func newRecallData(req papermem.RecallRequest) *recallData {
	return &recallData{Req: req, Keywords: strings.Join(req.Keywords, ", "),
		Labels: []string{papermem.LabelAny, papermem.LabelClaim, papermem.LabelPassage, papermem.LabelPaper,
			papermem.LabelAnalysis, papermem.LabelDocument},
		SectionTypes: papermem.SectionTypes, ScopeSignals: papermem.ScopeSignals}
}

// recall runs the form's recall and shows the spans with their citations.
// A bad request is shown on the form with its status.
func (h *handler) recall(w http.ResponseWriter, r *http.Request, v *viewer) error {
	if err := parseForm(r); err != nil {
		return err
	}
	req := papermem.RecallRequest{Question: trimmed(r, "question"), Label: trimmed(r, "label"), Domain: trimmed(r, "domain"),
		SectionTypes: r.PostForm["section_type"], ScopeSignals: r.PostForm["scope_signal"]}
	for _, k := range strings.Split(r.PostFormValue("keywords"), ",") {
		if k = strings.TrimSpace(k); k != "" {
			req.Keywords = append(req.Keywords, k)
		}
	}
	d := newRecallData(req)
	p := &page{Title: "Recall playground", Nav: "recall", Viewer: v, Data: d}
	var err error
	if b := trimmed(r, "budget"); b != "" {
		if req.BudgetTokens, err = strconv.Atoi(b); err != nil {
			err = papermem.Errorf(papermem.EINVALID, "The budget must be a whole number of tokens.")
		}
	}
	if err == nil {
		d.Req.BudgetTokens = req.BudgetTokens
		d.Result, err = h.m.Workspace(v.User.WorkspaceID).Recall(r.Context(), req)
	}
	if err != nil {
		if h.cfg.Status(err) >= 500 {
			return err
		}
		p.Error = papermem.ErrorMessage(err)
		h.render(w, r, h.cfg.Status(err), "recall", p)
		return nil
	}
	if d.Req.BudgetTokens == 0 {
		d.Req.BudgetTokens = papermem.DefaultBudgetTokens
	}
	d.Bar = newTokenBar(d.Result, d.Req.BudgetTokens)
	h.render(w, r, http.StatusOK, "recall", p)
	return nil
}

// citation is a span's provenance as one line.
func citation(p papermem.Provenance) string {
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	add(p.Kind)
	if p.Retracted {
		add("RETRACTED")
	}
	add(p.Title)
	if p.DOI != "" {
		add("doi:" + p.DOI)
	}
	add(p.Source)
	add(p.Section)
	if p.Sheet != "" {
		add("sheet " + p.Sheet)
	}
	if p.Page > 0 {
		add("p. " + strconv.Itoa(p.Page))
	}
	if p.Row > 0 {
		add("row " + strconv.Itoa(p.Row))
	}
	add(fmt.Sprintf("chars %d–%d", p.CharStart, p.CharEnd))
	return strings.Join(parts, " · ")
}
