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

// Read returns how many entries the part read from its files when loaded.
func (p *Part) Read() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.fromFiles
}

// WaitSnapshots returns once the snapshots being written are.
func (x *Index) WaitSnapshots() { x.saving.Wait() }

// Abandon releases the index's directory without writing anything, as a
// process killed would.
func (x *Index) Abandon() {
	x.saving.Wait()
	if x.lock != nil {
		x.lock.Close()
	}
	x.dir = ""
}

// SetSnapshotMin sets the fewest new entries that make a snapshot due,
// until the returned function is called.
func SetSnapshotMin(n int) (restore func()) {
	old := snapshotMin
	snapshotMin = n
	return func() { snapshotMin = old }
}
