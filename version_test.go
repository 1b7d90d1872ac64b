package hearth

import (
	"runtime/debug"
	"testing"
	"time"
)

func TestVersionFrom(t *testing.T) {
	rev := "3f9a1c2b7d10e4f5a6b7c8d9e0f1a2b3c4d5e6f7"
	when := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-03-01T12:00:00Z"}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want VersionInfo
		str  string
	}{
		{name: "no build info", bi: nil, want: VersionInfo{Version: "(devel)"}, str: "(devel)"},
		{name: "go test", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/hearth-rpg/hearth"}},
			want: VersionInfo{Version: "(devel)", Go: "go1.26.8"}, str: "(devel)"},
		{name: "release", bi: &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, want: VersionInfo{Version: "v0.3.0"}, str: "v0.3.0"},
		{name: "clean checkout", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")},
			want: VersionInfo{Version: "(devel)", Revision: rev, Time: when}, str: "(devel) (3f9a1c2b7d10, 2026-03-01T12:00:00Z)"},
		{name: "dirty checkout", bi: &debug.BuildInfo{Main: debug.Module{Version: "v0.3.1-0.20260301120000-3f9a1c2b7d10+dirty"}, Settings: vcs("true")},
			want: VersionInfo{Version: "v0.3.1-0.20260301120000-3f9a1c2b7d10+dirty", Revision: rev, Time: when, Modified: true},
			str:  "v0.3.1-0.20260301120000-3f9a1c2b7d10+dirty (3f9a1c2b7d10+dirty, 2026-03-01T12:00:00Z)"},
		{name: "bad time", bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: "yesterday"}}},
			want: VersionInfo{Version: "v1.0.0", Revision: "abc"}, str: "v1.0.0 (abc)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := versionFrom(tc.bi)
			if got != tc.want {
				t.Errorf("versionFrom = %+v, want %+v", got, tc.want)
			}
			if got.String() != tc.str {
				t.Errorf("String = %q, want %q", got.String(), tc.str)
			}
		})
	}
}

// The test binary is built without VCS settings, but with a Go version.
func TestVersionOfThisBinary(t *testing.T) {
	if v := Version(); v.Version == "" || v.Go == "" {
		t.Errorf("Version() = %+v", v)
	}
}
