package dashboard

import (
	"html/template"
	"net/http"
	"slices"

	"github.com/papermem/papermem"
)

var errNoPage = papermem.Errorf(papermem.ENOTFOUND, "No such page.")

// home is the overview.
func (h *handler) home(w http.ResponseWriter, r *http.Request, v *viewer) error {
	http.Redirect(w, r, Prefix+"keys", http.StatusSeeOther)
	return nil
}

// funcs are the template functions.
var funcs = template.FuncMap{
	"cite": citation,
	"has":  slices.Contains[[]string],
	"odd":  func(i int) bool { return i%2 == 1 },
	"deref": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
}
