package dashboard

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
)

// overviewData is the overview: memory, domains, cache and usage, each as
// a chart.
type overviewData struct {
	Analytics *hosted.Analytics
	Plan      papermem.Plan
	Usage     *hosted.Usage
	Memory    *barChart
	Domains   *barChart
	Cache     *barChart
	Quotas    *barChart
}

func (h *handler) overview(w http.ResponseWriter, r *http.Request, v *viewer) error {
	hw := h.svc.Workspace(v.User.WorkspaceID)
	a, err := hw.Analytics(r.Context())
	if err != nil {
		return err
	}
	acct, err := h.m.Workspace(v.User.WorkspaceID).Account(r.Context())
	if err != nil {
		return err
	}
	u, err := hw.Usage(r.Context())
	if err != nil {
		return err
	}
	d := overviewData{Analytics: a, Plan: acct.Plan, Usage: u}
	m := a.Memory
	d.Memory = newBarChart("Memory", []bar{
		{Label: "Papers", N: m.Papers, Value: count(m.Papers)},
		{Label: "Documents", N: m.Documents, Value: count(m.Documents)},
		{Label: "Analyses", N: m.Analyses, Value: count(m.Analyses)},
		{Label: "User memories", N: m.Memories, Value: count(m.Memories)},
	})
	var domains []bar
	for _, dc := range a.TopDomains {
		domains = append(domains, bar{Label: dc.Domain, N: dc.Count, Value: count(dc.Count)})
	}
	d.Domains = newBarChart("Top domains", domains)
	c := a.Cache
	d.Cache = newBarChart("Fetch cache", []bar{
		{Label: "Answered from memory", N: c.WarmHits, Of: max(c.Fetches, 1),
			Value: fmt.Sprintf("%s of %s (%.0f%%)", count(c.WarmHits), count(c.Fetches), 100*c.HitRate)},
	})
	var quotas []bar
	for _, name := range papermem.Counters {
		n := u.Counters[name]
		if q := acct.Plan.Quotas.Of(name); q > 0 {
			quotas = append(quotas, bar{Label: counterLabel(name), N: n, Of: q,
				Value: counterValue(name, n) + " of " + counterValue(name, q)})
		}
	}
	d.Quotas = newBarChart("Usage this period against "+acct.Plan.Name, quotas)
	h.render(w, r, http.StatusOK, "overview", &page{Title: "Overview", Nav: "overview", Viewer: v, Data: d})
	return nil
}

// count writes n with thousands separators.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
