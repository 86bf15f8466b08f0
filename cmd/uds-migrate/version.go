package main

import (
	"runtime/debug"
)

// version says which build this is: the module version when installed
// with go install ...@vX, else the VCS revision the binary was built from
// (with "+dirty" for uncommitted changes), else "dev". It also goes to
// SARIF's tool.driver.version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case v != "" && v != "(devel)" && rev != "":
		return v + " (" + rev + dirty + ")"
	case v != "" && v != "(devel)":
		return v
	case rev != "":
		return "devel " + rev + dirty
	}
	return "dev"
}
