// Package testhook holds the points at which a test stops a long
// operation midway, holding what it holds there, to see what runs
// meanwhile without racing the clock: the operation calls the hook at the
// point its doc names, and the hook returns when the test lets it.
//
// Every hook is nil in production, and the code that calls one checks for
// nil first. The hooks are plain variables, read without synchronization:
// a test sets them before it starts anything that may call them and clears
// them once all of that has ended (httpapi's cluster tests do both around
// their servers' lifetime).
package testhook

// Materialize, when not nil, is called by Workspace.Materialize once it
// has read the workspace's links and before it computes the related pairs
// from them and writes the difference: there it holds no lock and no
// transaction.
var Materialize func()

// IndexLoad, when not nil, is called when the search index loads a
// workspace's part for the first time (a cold load, as the first search
// of a workspace in a process does), before it reads the nodes: the part
// is locked and the read snapshot the nodes come from is open.
var IndexLoad func()
