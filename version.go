package hearth

import (
	"runtime/debug"
	"time"
)

// VersionInfo is what a binary knows about the source it was built from.
type VersionInfo struct {
	// Version is the module version: a release tag when installed with
	// "go install …@vX", "(devel)" when built from a checkout.
	Version string `json:"version"`
	// Revision is the VCS commit, Time its commit time and Modified
	// whether the work tree had uncommitted changes; all empty when the
	// build had no VCS information (go test, -buildvcs=false).
	Revision string    `json:"revision,omitempty"`
	Time     time.Time `json:"commit_time,omitzero"`
	Modified bool      `json:"modified,omitempty"`
	Go       string    `json:"go,omitempty"`
}

// Version describes the running binary, from its build information.
func Version() VersionInfo {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(bi)
}

func versionFrom(bi *debug.BuildInfo) VersionInfo {
	v := VersionInfo{Version: "(devel)"}
	if bi == nil {
		return v
	}
	v.Go = bi.GoVersion
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				v.Time = t.UTC()
			}
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// Short is the revision cut to the 12 digits people quote.
func (v VersionInfo) Short() string {
	if len(v.Revision) > 12 {
		return v.Revision[:12]
	}
	return v.Revision
}

// String is one line for --version and logs, e.g.
// "v0.3.0 (3f9a1c2b7d10, 2026-03-01T12:00:00Z)" or
// "(devel) (3f9a1c2b7d10+dirty, 2026-03-01T12:00:00Z)".
func (v VersionInfo) String() string {
	s := v.Version
	if v.Revision == "" {
		return s
	}
	s += " (" + v.Short()
	if v.Modified {
		s += "+dirty"
	}
	if !v.Time.IsZero() {
		s += ", " + v.Time.Format(time.RFC3339)
	}
	return s + ")"
}
