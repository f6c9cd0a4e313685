package dashboard

import (
	"net/http"
	"net/url"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/hosted"
)

// The founder console: every page here needs founder access.

var errNoFounder = papermem.Errorf(papermem.EFORBIDDEN, "This page needs founder access.")

// founderOnly wraps a page for founders only.
func (h *handler) founderOnly(f pageFunc) http.Handler {
	return h.signedIn(func(w http.ResponseWriter, r *http.Request, v *viewer) error {
		if !v.Founder {
			return errNoFounder
		}
		return f(w, r, v)
	})
}

// founderData is the console: the platform's overview and health, every
// workspace and every user.
type founderData struct {
	Overview   *hosted.Overview
	Usage      *barChart
	Workspaces []hosted.WorkspaceSummary
	Users      []hosted.UserSummary
	Plans      []papermem.Plan
	Changed    string // the workspace whose plan was just set
}

func (h *handler) founder(w http.ResponseWriter, r *http.Request, v *viewer) error {
	ctx := r.Context()
	o, err := h.svc.Overview(ctx)
	if err != nil {
		return err
	}
	o.Health = h.cfg.Server.Health(ctx)
	d := founderData{Overview: o, Plans: papermem.Plans, Changed: r.URL.Query().Get("changed")}
	if d.Workspaces, err = h.svc.AllWorkspaces(ctx); err != nil {
		return err
	}
	if d.Users, err = h.svc.AllUsers(ctx); err != nil {
		return err
	}
	for i := range d.Users {
		d.Users[i].Founder = h.cfg.Server.IsFounder(&d.Users[i].User)
	}
	var usage []bar
	for _, name := range papermem.Counters {
		n := o.Usage.Counters[name]
		b := bar{Label: counterLabel(name), N: n, Value: counterValue(name, n)}
		if name == papermem.CounterBytesIngested {
			b.Of = -1 // bytes on no scale with the counts
		}
		usage = append(usage, b)
	}
	d.Usage = newBarChart("Usage this period, every workspace", usage)
	h.render(w, r, http.StatusOK, "founder", &page{Title: "Founder console", Nav: "founder", Viewer: v, Data: d})
	return nil
}

// setPlan moves a workspace to a plan without payment.
func (h *handler) setPlan(w http.ResponseWriter, r *http.Request, v *viewer) error {
	org := r.PathValue("org")
	if _, err := h.svc.SetPlan(r.Context(), org, trimmed(r, "plan")); err != nil {
		return err
	}
	http.Redirect(w, r, Prefix+"founder?changed="+url.QueryEscape(org), http.StatusSeeOther)
	return nil
}
