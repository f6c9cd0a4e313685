package dashboard

import (
	"html/template"
	"net/http"

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
	"deref": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
}
