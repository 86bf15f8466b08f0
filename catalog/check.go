package catalog

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

var (
	familyRE  = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)
	imageRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9._/*\[\]-]*$`)
	keyRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	versionRE = regexp.MustCompile(`^\d+(\.\d+)*$`)
	commitRE  = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// check enforces the schema the loader cannot: every entry names its
// images, a host or URL variable, a reason for each, and at least one
// source with what was read there.
func (e *Entry) check() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !familyRE.MatchString(e.Family) {
		bad("family %q: want lower-case letters, digits, . and -", e.Family)
	}
	if len(e.Images) == 0 {
		bad("no images")
	}
	for _, img := range e.Images {
		if !imageRE.MatchString(img) || strings.Contains(img, ":") || strings.HasPrefix(img, "library/") {
			bad("image %q: want a lower-case repository path without registry, tag or library/", img)
		}
		if _, err := path.Match(img, ""); err != nil {
			bad("image %q: %v", img, err)
		}
	}
	if e.Server != nil {
		e.checkServer(bad)
	}
	if e.StateDir != "" && (!path.IsAbs(e.StateDir) || path.Clean(e.StateDir) != e.StateDir) {
		bad("state_dir %q: want a clean absolute directory", e.StateDir)
	}
	if e.MinVersion != "" && !versionRE.MatchString(e.MinVersion) {
		bad("min_version %q: want dotted numbers", e.MinVersion)
	}
	if e.NotAClient {
		if len(e.Vars) > 0 {
			bad("not_a_client: an image that reads no connection variable lists none")
		}
	} else {
		e.checkVars(bad)
	}
	e.checkFiles(bad)
	if len(e.Sources) == 0 {
		bad("no sources: an unverified entry is not an entry")
	}
	sources := e.Sources
	for _, v := range e.Vars {
		if v.Since != nil {
			if len(v.Since.Sources) == 0 {
				bad("var %s: since has no sources", v.Key)
			}
			sources = append(sources, v.Since.Sources...)
		}
	}
	for _, s := range sources {
		if (s.URL == "") == (s.Repo == "" || s.File == "") || strings.TrimSpace(s.Read) == "" {
			bad("source %+v: want url, or repo and file, and what was read there", s)
		}
		if s.Commit != "" && (s.Repo == "" || !commitRE.MatchString(s.Commit)) {
			bad("source %s: commit %q wants a repo and 40 lower-case hex digits", s.Cite(), s.Commit)
		}
	}
	return errors.Join(errs...)
}

func (e *Entry) checkVars(bad func(string, ...any)) {
	hostOrURL := false
	keys := map[string]bool{}
	for _, v := range e.Vars {
		if !keyRE.MatchString(v.Key) {
			bad("var %q: not an environment variable name", v.Key)
		}
		if v.Since != nil && (!versionRE.MatchString(v.Since.Version) || strings.TrimSpace(v.Since.Reason) == "") {
			bad("var %s: since wants a version of dotted numbers and a reason", v.Key)
		}
		if keys[v.Key] {
			bad("var %s listed twice", v.Key)
		}
		keys[v.Key] = true
		switch v.Role {
		case RoleHost, RoleURL:
			hostOrURL = true
		case RolePort:
			if v.Directory {
				bad("var %s: a port variable takes no directory", v.Key)
			}
		default:
			bad("var %s: role %q, want host, port or url", v.Key, v.Role)
		}
		if v.URIHost != "" && (v.Role != RoleURL || !v.Directory || v.URIHost != "localhost") {
			bad("var %s: uri_host %q wants a url variable that takes the socket form, and localhost", v.Key, v.URIHost)
		}
		if v.ExtensionDir != "" && (v.Role != RoleURL || !v.Directory || !strings.HasPrefix(v.ExtensionDir, "/")) {
			bad("var %s: extension_dir %q wants a url variable that takes the socket form, and an absolute directory", v.Key, v.ExtensionDir)
		}
		if c := v.UnlessConf; c != nil && (!strings.HasPrefix(c.File, "/") || !keyRE.MatchString(c.Key)) {
			bad("var %s: unless_conf %+v wants an absolute file and a key", v.Key, *c)
		}
		if v.NoSocket && (v.Role == RolePort || v.Directory) {
			bad("var %s: no_socket is for a host or url variable that takes no socket (directory: false)", v.Key)
		}
		if v.Default != "" && (v.Role != RoleHost || strings.ContainsAny(v.Default, " /:")) {
			bad("var %s: default %q is for a host variable, and names a host (no port, no path)", v.Key, v.Default)
		}
		if v.NoQueryPort && (v.Role != RoleURL || !v.Directory) {
			bad("var %s: no_query_port is for a url variable that takes the socket form", v.Key)
		}
		if strings.TrimSpace(v.Reason) == "" {
			bad("var %s: no reason", v.Key)
		}
		// takes the socket, at least from some version on (since:)
		takes := v.Directory || (v.Since != nil && v.Since.Directory)
		for _, r := range v.Requires {
			if !keyRE.MatchString(r.Key) || r.Key == v.Key || strings.TrimSpace(r.Reason) == "" {
				bad("var %s: requires %+v wants another variable's key and a reason", v.Key, r)
			}
			if v.Role == RolePort || !takes {
				bad("var %s: requires is for a host or url variable that takes the socket (directory: true)", v.Key)
			}
		}
		if v.SocketVar != "" && (v.Role != RoleHost || !takes || !keyRE.MatchString(v.SocketVar) || v.SocketVar == v.Key || v.HostPort) {
			bad("var %s: socket_var %q wants a host variable that takes the socket (directory: true, no host_port) and another variable's name", v.Key, v.SocketVar)
		}
		for _, a := range v.Also {
			if !keyRE.MatchString(a.Key) || a.Reason == "" {
				bad("var %s: also %+v wants a key and a reason", v.Key, a)
			}
		}
	}
	switch {
	case e.Server != nil && len(e.Vars) > 0:
		bad("a server entry lists no variables (its clients' entries do)")
	case e.Server != nil && e.Pooler:
		bad("an entry is a server or a pooler, not both")
	case !hostOrURL && e.Server == nil && !(e.Pooler && len(e.Vars) == 0) && len(e.Files) == 0:
		bad("no host or url variable")
	}
}

// checkServer checks a server block: a known entrypoint, an absolute
// socket directory or a reason why there is none, what the local lines
// do.
func (e *Entry) checkServer(bad func(string, ...any)) {
	s := e.Server
	switch s.Entrypoint {
	case EntrypointOfficial, EntrypointBitnami, EntrypointSclorg, EntrypointSameersbn:
	case "":
		if s.No == "" {
			bad("server: no entrypoint: want official, bitnami, sclorg or sameersbn (or no: with the reason its clients stay on TCP)")
		}
	default:
		bad("server: entrypoint %q, want official, bitnami, sclorg or sameersbn", s.Entrypoint)
	}
	switch {
	case s.No == "" && !strings.HasPrefix(s.SocketDir, "/"):
		bad("server: socket_dir %q, want an absolute directory (or no: with the reason there is none)", s.SocketDir)
	case s.No != "" && s.SocketDir != "":
		bad("server: socket_dir and no: a server whose clients stay on TCP names no socket directory")
	}
	if s.PortEnv != "" && !keyRE.MatchString(s.PortEnv) {
		bad("server: port_env %q is not an environment variable name", s.PortEnv)
	}
	if strings.TrimSpace(s.Local) == "" {
		bad("server: local: say what pg_hba.conf does with local connections")
	}
}

// fileKeyRE is a setting's key in a configuration file: dotted words.
var fileKeyRE = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$`)

// checkFiles checks the configuration file settings of an entry: an
// absolute clean path, a format the tool reads, dotted keys, a url or
// host role, a reason.
func (e *Entry) checkFiles(bad func(string, ...any)) {
	for _, f := range e.Files {
		if !path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path {
			bad("file %q: want a clean absolute path in the container", f.Path)
		}
		if f.Format != FormatYAML && f.Format != FormatINI {
			bad("file %s: format %q, want yaml or ini", f.Path, f.Format)
		}
		if !fileKeyRE.MatchString(f.Key) || (f.When != nil && !fileKeyRE.MatchString(f.When.Key)) || (f.Port != "" && !fileKeyRE.MatchString(f.Port)) {
			bad("file %s: key %q (when, port): want dotted keys (section.key for ini)", f.Path, f.Key)
		}
		if f.Role != RoleURL && f.Role != RoleHost {
			bad("file %s key %s: role %q, want url or host", f.Path, f.Key, f.Role)
		}
		if f.Port != "" && f.Role != RoleHost {
			bad("file %s key %s: port is for a host setting", f.Path, f.Key)
		}
		if f.URIHost != "" && (f.Role != RoleURL || !f.Directory || f.URIHost != "localhost") {
			bad("file %s key %s: uri_host %q wants a url setting that takes the socket form, and localhost", f.Path, f.Key, f.URIHost)
		}
		for _, k := range append(slices.Clone(f.PathVars), f.Unless...) {
			if k != "" && !keyRE.MatchString(k) {
				bad("file %s: %q is not an environment variable name", f.Path, k)
			}
		}
		if strings.TrimSpace(f.Reason) == "" {
			bad("file %s key %s: no reason", f.Path, f.Key)
		}
	}
}
