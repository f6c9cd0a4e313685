package telemetry

import "sync"

// serverSet keeps the first max distinct server addresses seen; any other
// is "other".
type serverSet struct {
	mu   sync.Mutex
	max  int
	seen map[string]bool
}

func newServerSet(max int) *serverSet { return &serverSet{max: max, seen: map[string]bool{}} }

// label is server as a label value: itself when kept, else "other".
func (s *serverSet) label(server string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[server] {
		return server
	}
	if len(s.seen) < s.max {
		s.seen[server] = true
		return server
	}
	return "other"
}
