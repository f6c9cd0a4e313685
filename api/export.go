package api

import (
	"strings"
	"time"

	"github.com/papermem/papermem"
)

// TimeParam parses v, the optional ISO-8601 date or time of the export
// routes' since or until parameter (name): "" is the zero time, an
// unparseable value EINVALID. A bare date as an upper bound means the last
// millisecond of that day.
func TimeParam(name, v string, upper bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := papermem.ParseTime(v)
	if err != nil {
		return time.Time{}, papermem.Errorf(papermem.EINVALID, "%s: %s", name, papermem.ErrorMessage(err))
	}
	if upper && len(strings.TrimSpace(v)) == len("2006-01-02") {
		t = t.Add(24*time.Hour - time.Millisecond)
	}
	return t, nil
}
