package catalog

import (
	"fmt"
	"strconv"
	"strings"
)

// Lookup returns the entry for an image reference ("odoo:17.0",
// "docker.io/bitnami/pgbouncer:1.23.1", "ghcr.io/goauthentik/server"), or
// nil. An entry whose MinVersion is newer than a numeric tag is not
// returned: its facts are not known to hold there.
func Lookup(image string) *Entry {
	repo, tag := Split(image)
	for _, e := range All() {
		for _, img := range e.Images {
			if matchImage(img, repo) && e.covers(tag) {
				return e.at(tag)
			}
		}
	}
	return nil
}

// Var returns the entry's variable named key, or nil.
func (e *Entry) Var(key string) *Var {
	for i := range e.Vars {
		if e.Vars[i].Key == key {
			return &e.Vars[i]
		}
	}
	return nil
}

// In returns the variable as it holds in a service whose environment env
// reads (a key's effective value, "" when unset): when the service does
// not meet one of its requirements (Requires), a copy that takes no socket
// (Directory false) whose Reason says which value is missing and why;
// otherwise v itself.
func (v *Var) In(env func(key string) string) *Var {
	if !v.Directory {
		return v // takes no socket anyway (an older tag: since:)
	}
	for _, r := range v.Requires {
		got := env(r.Key)
		if got == r.Value || (got == "" && r.OrUnset) {
			continue
		}
		have := "unset"
		if got != "" {
			have = strconv.Quote(got)
		}
		c := *v
		c.Directory = false
		c.Reason = fmt.Sprintf("%s is %s here, not %q: %s", r.Key, have, r.Value, r.Reason)
		return &c
	}
	return v
}

// Split returns the repository path of an image reference (lower case,
// registry host, "library/", tag and digest removed) and its tag.
func Split(image string) (repo, tag string) {
	ref := strings.ToLower(strings.TrimSpace(image))
	if i := strings.Index(ref, "@"); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref, tag = ref[:i], ref[i+1:]
	}
	parts := strings.Split(ref, "/")
	// A first component with a dot or a port, or localhost, is a registry
	// host (distribution/reference).
	if len(parts) > 1 && (strings.ContainsAny(parts[0], ".:") || parts[0] == "localhost") {
		parts = parts[1:]
	}
	repo = strings.TrimPrefix(strings.Join(parts, "/"), "library/")
	return repo, tag
}

// at returns the entry as it holds for an image tag: a copy whose
// variables with a Since the tag reaches take its behaviour.
func (e *Entry) at(tag string) *Entry {
	var out *Entry
	for i, v := range e.Vars {
		if v.Since == nil || !tagAtLeast(tag, v.Since.Version) {
			continue
		}
		if out == nil {
			c := *e
			c.Vars = append([]Var(nil), e.Vars...)
			out = &c
		}
		out.Vars[i].Directory, out.Vars[i].Reason = v.Since.Directory, v.Since.Reason
		out.Sources = append(append([]Source(nil), v.Since.Sources...), out.Sources...)
	}
	if out == nil {
		return e
	}
	return out
}

// covers reports whether the entry holds for an image tag.
func (e *Entry) covers(tag string) bool {
	return e.MinVersion == "" || tagAtLeast(tag, e.MinVersion)
}

// tagAtLeast reports whether an image tag's leading version is at least
// least (dotted numbers compared piecewise); a tag without one (latest) is
// taken as current.
func tagAtLeast(tag, least string) bool {
	have, ok := leadingVersion(tag)
	if !ok {
		return true
	}
	want, _ := leadingVersion(least)
	for i := 0; i < len(want); i++ {
		h := 0
		if i < len(have) {
			h = have[i]
		}
		if h != want[i] {
			return h > want[i]
		}
	}
	return true
}

// leadingVersion reads the dotted numbers a tag starts with ("17.0",
// "v2.8.1-alpine" → 2.8.1). ok is false for tags without one (latest).
func leadingVersion(tag string) ([]int, bool) {
	tag = strings.TrimPrefix(tag, "v")
	var out []int
	for _, part := range strings.Split(tag, ".") {
		end := 0
		for end < len(part) && part[end] >= '0' && part[end] <= '9' {
			end++
		}
		if end == 0 {
			break
		}
		n, _ := strconv.Atoi(part[:end])
		out = append(out, n)
		if end < len(part) {
			break
		}
	}
	return out, len(out) > 0
}
