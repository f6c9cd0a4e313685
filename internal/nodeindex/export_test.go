package nodeindex

import "slices"

// What the external tests look at inside an Index.

// Loaded returns the workspaces whose part is loaded, in order.
func (x *Index) Loaded() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []string
	for org := range x.orgs {
		out = append(out, org)
	}
	slices.Sort(out)
	return out
}

// Version returns the vec_version the part reflects.
func (p *Part) Version() int64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.version
}

// Dead returns how many of the part's entries are marked dead.
func (p *Part) Dead() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.ndead
}
