package main

import (
	"runtime/debug"
	"testing"
)

// TestVersion: --version names the module, its version and the VCS
// revision where the build has them (issue #23 point 9): go install
// ...@vX stamps the version, go build in a checkout (-buildvcs) the
// revision and a pseudo-version, a test binary neither.
func TestVersion(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "3fc9056e27f2aa00bb11cc22dd33ee44ff556677"}, {Key: "vcs.time", Value: "2026-12-01T20:51:18Z"}}
	cases := []struct {
		bi          *debug.BuildInfo
		short, long string
	}{
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/uds-migrate/uds-migrate", Version: "v0.1.0"}},
			"v0.1.0", "v0.1.0 (module github.com/uds-migrate/uds-migrate, no VCS revision in this build, built with go1.26.8)"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/uds-migrate/uds-migrate", Version: "v0.0.0-20261201205118-3fc9056e27f2"}, Settings: vcs},
			"v0.0.0-20261201205118-3fc9056e27f2 (3fc9056e27f2)", "v0.0.0-20261201205118-3fc9056e27f2 (module github.com/uds-migrate/uds-migrate, revision 3fc9056e27f2, committed 2026-12-01T20:51:18Z, built with go1.26.8)"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/uds-migrate/uds-migrate", Version: "(devel)"}, Settings: append(vcs, debug.BuildSetting{Key: "vcs.modified", Value: "true"})},
			"devel 3fc9056e27f2+dirty", "devel (module github.com/uds-migrate/uds-migrate, revision 3fc9056e27f2 with uncommitted changes, committed 2026-12-01T20:51:18Z, built with go1.26.8)"},
		{nil, "dev", "devel (no VCS revision in this build)"},
	}
	for _, c := range cases {
		b := readBuild(c.bi, c.bi != nil)
		if b.short() != c.short || b.long() != c.long {
			t.Errorf("%+v:\n short %q, want %q\n long  %q, want %q", c.bi, b.short(), c.short, b.long(), c.long)
		}
	}
}
