// Package buildinfo reports which papermem a running binary was built
// from: the version the MCP server gives in its handshake, and the one
// `papermem --version` prints.
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// ModulePath is papermem's module path.
const ModulePath = "github.com/papermem/papermem"

// Devel is the version of a build that carries none, such as `go run` with
// version control stamping off, or a test binary.
const Devel = "devel"

// Version returns the version of the papermem module in this binary: the
// main module's when the binary is a papermem command, else papermem's
// among the binary's dependencies (a program that embeds papermem). That
// is a release ("v1.2.0") or the pseudo-version `go build` and `go
// install` stamp from a git checkout
// ("v0.0.0-20260301120000-b8eb021a1b2c+dirty"). A build without one, whose
// module version reads "(devel)", is Devel followed by the commit when it
// was recorded ("devel+b8eb021a1b2c", "devel+b8eb021a1b2c+dirty" with
// uncommitted changes), else Devel. Never empty.
func Version() string { return version() }

var version = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Devel
	}
	return fromBuildInfo(bi)
})

// fromBuildInfo is Version of the build bi describes.
func fromBuildInfo(bi *debug.BuildInfo) string {
	mod := &bi.Main
	if bi.Main.Path != ModulePath {
		mod = nil
		for _, d := range bi.Deps {
			if d.Path == ModulePath {
				mod = d
				if d.Replace != nil {
					mod = d.Replace
				}
				break
			}
		}
	}
	if mod != nil && mod.Version != "" && mod.Version != "(devel)" {
		return mod.Version
	}
	if mod != &bi.Main { // the settings describe the main module only
		return Devel
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return Devel
	}
	v := Devel + "+" + rev[:min(len(rev), 12)]
	if dirty {
		v += "+dirty"
	}
	return v
}
