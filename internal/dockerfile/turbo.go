package dockerfile

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// TurboPruned returns the context sources (relative) `turbo prune SCOPE`
// keeps in its output: the root package.json, the workspace file, and the
// folder of each named workspace and of every workspace it depends on
// (dependencies, devDependencies, peerDependencies, optionalDependencies,
// transitively: vercel/turbo#1100 "turbo prune --scope=app will generate
// a directory out/ with app, lib-config and tooling", tooling being a
// devDependency). Workspaces are the folders the root package.json's
// "workspaces" or pnpm-workspace.yaml's packages: list, holding a
// package.json with a name. read reads a context file by its relative
// path; glob lists the context folders (relative) a workspace pattern
// matches. ok is false when a scope names no workspace.
func TurboPruned(scopes []string, read func(rel string) ([]byte, error), glob func(pattern string) []string) ([]string, bool) {
	dirs := map[string]string{}   // workspace name → folder
	deps := map[string][]string{} // workspace name → the workspaces' names it depends on
	out := []string{"package.json"}
	patterns := workspacePatterns(read)
	if _, err := read("pnpm-workspace.yaml"); err == nil {
		out = append(out, "pnpm-workspace.yaml")
	}
	for _, pat := range patterns {
		for _, dir := range glob(pat) {
			data, err := read(path.Join(dir, "package.json"))
			if err != nil {
				continue
			}
			var m struct {
				Name                                                                  string
				Dependencies, DevDependencies, PeerDependencies, OptionalDependencies map[string]any
			}
			if json.Unmarshal(data, &m) != nil || m.Name == "" {
				continue
			}
			dirs[m.Name] = dir
			for _, d := range []map[string]any{m.Dependencies, m.DevDependencies, m.PeerDependencies, m.OptionalDependencies} {
				for name := range d {
					deps[m.Name] = append(deps[m.Name], name)
				}
			}
		}
	}
	seen := map[string]bool{}
	queue := slices.Clone(scopes)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		dir, ok := dirs[name]
		if !ok {
			if slices.Contains(scopes, name) {
				return nil, false
			}
			continue // a package of the registry
		}
		out = append(out, dir)
		queue = append(queue, deps[name]...)
	}
	slices.Sort(out[1:])
	return out, true
}

// workspacePatterns reads the workspace folders' patterns: package.json's
// "workspaces" (a list, or {"packages": [...]}) and pnpm-workspace.yaml's
// packages:; negated ones ("!**/test") are left out.
func workspacePatterns(read func(string) ([]byte, error)) []string {
	var pats []string
	if data, err := read("package.json"); err == nil {
		var m struct{ Workspaces json.RawMessage }
		if json.Unmarshal(data, &m) == nil && len(m.Workspaces) > 0 {
			var list []string
			var obj struct{ Packages []string }
			if json.Unmarshal(m.Workspaces, &list) != nil && json.Unmarshal(m.Workspaces, &obj) == nil {
				list = obj.Packages
			}
			pats = append(pats, list...)
		}
	}
	if data, err := read("pnpm-workspace.yaml"); err == nil {
		var m struct{ Packages []string }
		if yaml.Unmarshal(data, &m) == nil {
			pats = append(pats, m.Packages...)
		}
	}
	var out []string
	for _, p := range pats {
		if p = strings.TrimSpace(p); p != "" && !strings.HasPrefix(p, "!") {
			out = append(out, strings.TrimSuffix(path.Clean(p), "/"))
		}
	}
	return out
}
