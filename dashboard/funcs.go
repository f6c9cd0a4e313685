package dashboard

import (
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/papermem/papermem"
)

var errNoPage = papermem.Errorf(papermem.ENOTFOUND, "No such page.")

// funcs are the template functions.
var funcs = template.FuncMap{
	"cite":  citation,
	"paper": paperPath,
	"count": count,
	"int64": func(n int) int64 { return int64(n) },
	"cents": func(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) },
	"day":   func(ts string) string { d, _, _ := strings.Cut(ts, "T"); return d },
	"join":  strings.Join,
	"bytes": byteSize,
	"has":   slices.Contains[[]string],
	"odd":   func(i int) bool { return i%2 == 1 },
	"deref": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
}

// byteSize writes n bytes in the largest unit of GiB, MiB and KiB it
// reaches.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
