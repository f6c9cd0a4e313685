package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "b8eb021a1b2c3d4e5f60718293a4b5c6d7e8f901"}
	dirty := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	clean := debug.BuildSetting{Key: "vcs.modified", Value: "false"}
	other := debug.Module{Path: "example.org/agent", Version: "(devel)"}
	for name, tt := range map[string]struct {
		bi   debug.BuildInfo
		want string
	}{
		"Release":        {debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "v1.2.0"}}, "v1.2.0"},
		"PseudoVersion":  {debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "v0.0.0-20260301120000-b8eb021a1b2c+dirty"}, Settings: []debug.BuildSetting{rev, dirty}}, "v0.0.0-20260301120000-b8eb021a1b2c+dirty"},
		"DevelCommit":    {debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "(devel)"}, Settings: []debug.BuildSetting{rev, clean}}, "devel+b8eb021a1b2c"},
		"DevelDirty":     {debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "(devel)"}, Settings: []debug.BuildSetting{rev, dirty}}, "devel+b8eb021a1b2c+dirty"},
		"DevelNoVCS":     {debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "(devel)"}}, "devel"},
		"TestBinary":     {debug.BuildInfo{}, "devel"},
		"Dependency":     {debug.BuildInfo{Main: other, Deps: []*debug.Module{{Path: ModulePath, Version: "v1.3.1"}}, Settings: []debug.BuildSetting{rev}}, "v1.3.1"},
		"Replaced":       {debug.BuildInfo{Main: other, Deps: []*debug.Module{{Path: ModulePath, Version: "v1.3.1", Replace: &debug.Module{Path: "../papermem", Version: ""}}}, Settings: []debug.BuildSetting{rev}}, "devel"},
		"NotADependency": {debug.BuildInfo{Main: other, Settings: []debug.BuildSetting{rev}}, "devel"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := fromBuildInfo(&tt.bi); got != tt.want {
				t.Errorf("version = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	if v := Version(); v == "" || v == "(devel)" {
		t.Errorf("Version() = %q", v)
	}
}
