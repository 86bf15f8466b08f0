package main

import (
	"runtime/debug"
	"strings"
)

// buildInfo is what the binary knows of its build (runtime/debug).
type buildInfo struct {
	module   string // module path
	version  string // module version ("" for a build from a checkout)
	revision string // VCS revision, 12 hex digits
	modified bool   // uncommitted changes in the checkout
	time     string // commit time (RFC 3339)
	goVer    string
}

func readBuild(bi *debug.BuildInfo, ok bool) buildInfo {
	if !ok || bi == nil {
		return buildInfo{}
	}
	b := buildInfo{module: bi.Main.Path, version: bi.Main.Version, goVer: bi.GoVersion}
	if b.version == "(devel)" {
		b.version = ""
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.revision = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		case "vcs.time":
			b.time = s.Value
		}
	}
	if len(b.revision) > 12 {
		b.revision = b.revision[:12]
	}
	return b
}

// short says which build this is: the module version when installed
// with go install ...@vX, else the VCS revision the binary was built from
// (with "+dirty" for uncommitted changes), else "dev". It also goes to
// SARIF's tool.driver.version.
func (b buildInfo) short() string {
	dirty := ""
	if b.modified {
		dirty = "+dirty"
	}
	switch {
	case b.version != "" && b.revision != "":
		return b.version + " (" + b.revision + dirty + ")"
	case b.version != "":
		return b.version
	case b.revision != "":
		return "devel " + b.revision + dirty
	}
	return "dev"
}

// long is what --version prints: the module and its version, the VCS
// revision and commit time, and the Go release, each where the build has
// it (go install ...@vX stamps the version, go build in a checkout the
// revision; go run and test binaries neither).
func (b buildInfo) long() string {
	v := b.version
	if v == "" {
		v = "devel"
	}
	var parts []string
	if b.module != "" {
		parts = append(parts, "module "+b.module)
	}
	switch {
	case b.revision != "" && b.modified:
		parts = append(parts, "revision "+b.revision+" with uncommitted changes")
	case b.revision != "":
		parts = append(parts, "revision "+b.revision)
	default:
		parts = append(parts, "no VCS revision in this build")
	}
	if b.time != "" {
		parts = append(parts, "committed "+b.time)
	}
	if b.goVer != "" {
		parts = append(parts, "built with "+b.goVer)
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}

func version() string { return readBuild(debug.ReadBuildInfo()).short() }

func versionLong() string { return readBuild(debug.ReadBuildInfo()).long() }
