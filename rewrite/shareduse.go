package rewrite

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// varUse is one place a compose file refers to an interpolation variable.
type varUse struct {
	service string
	path    string // key path inside the service: "command", "build.args.DATABASE_URL"
	pos     Pos
}

func (u varUse) String() string {
	return fmt.Sprintf("%s's %s (%s)", u.service, u.path, u.pos)
}

var refNameRE = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)`)

// varUses lists every place under services: (anchors and merge keys
// followed, every profile included) whose text refers to ${name}.
func (p *project) varUses(name string) []varUse {
	var out []varUse
	for _, src := range p.sources {
		svcs := servicesMapping(src)
		if svcs == nil {
			continue
		}
		for i := 0; i+1 < len(svcs.Content); i += 2 {
			svc := svcs.Content[i].Value
			walkScalars(svcs.Content[i+1], "", 0, func(path string, n *yaml.Node) {
				if refersTo(n.Value, name) {
					out = append(out, varUse{service: svc, path: path, pos: yamledit.NodePos(src, n)})
				}
			})
		}
	}
	return out
}

// walkScalars calls fn for each scalar value under n with its key path; a
// list item "KEY=value" of environment:/args: extends the path by KEY.
func walkScalars(n *yaml.Node, path string, depth int, fn func(string, *yaml.Node)) {
	n = yamledit.Deref(n)
	if n == nil || depth > 32 {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			sub := path
			if !yamledit.IsMergeKey(k) {
				sub = strings.TrimPrefix(path+"."+k.Value, ".")
			}
			walkScalars(n.Content[i+1], sub, depth+1, fn)
		}
	case yaml.SequenceNode:
		for _, it := range n.Content {
			sub := path
			if it = yamledit.Deref(it); it != nil && it.Kind == yaml.ScalarNode && (strings.HasSuffix(path, "environment") || strings.HasSuffix(path, "args")) {
				if k, _, ok := strings.Cut(it.Value, "="); ok {
					sub = path + "." + k
				}
			}
			walkScalars(it, sub, depth+1, fn)
		}
	case yaml.ScalarNode:
		fn(path, n)
	}
}

// refersTo reports whether compose text s interpolates variable name.
func refersTo(s, name string) bool {
	if !strings.Contains(s, name) {
		return false
	}
	m, err := interp.Mask(s)
	if err != nil {
		return false
	}
	for _, r := range m.Refs {
		if sub := refNameRE.FindStringSubmatch(r); sub != nil && sub[1] == name {
			return true
		}
	}
	return false
}

// keepSharedEnv drops the edges whose value is an env file line that
// another use needs unchanged: a ${VAR} in a service that does not get the
// socket volume (a command of a job, an excluded service or one outside the
// selected --profile), in build.args (a build has no volumes), or an
// env_file loaded by such a service. Rewriting that line would move them to
// a socket they cannot reach. Each dropped value gets UDS132.
func (pl *planner) keepSharedEnv(edges []*edge) []*edge {
	for changed := true; changed; {
		changed = false
		mounted := map[string]bool{}
		for _, db := range pl.dbs {
			mounted[db.name] = true // a server mounts the volume and ignores client variables
		}
		for _, e := range edges {
			mounted[e.v.service] = true
		}
		var kept []*edge
		for _, e := range edges {
			if other := pl.otherUses(e, mounted); len(other) > 0 {
				pl.withdrawDecision(e)
				pl.warnShared(e, other)
				changed = true
				continue
			}
			kept = append(kept, e)
		}
		edges = kept
	}
	pl.dropFollowedCommands(edges)
	return edges
}

// withdrawDecision removes the note that a host variable was set to the
// socket directory (UDS150, UDS152, UDS170) when its value stays on TCP
// after all: the note would contradict the UDS160 that replaces it.
func (pl *planner) withdrawDecision(e *edge) {
	pl.findings = slices.DeleteFunc(pl.findings, func(f Finding) bool {
		return f.Service == e.v.service && f.Key == e.v.key && (f.Code == "UDS150" || f.Code == "UDS152" || f.Code == "UDS170")
	})
}

// dropFollowedCommands withdraws UDS127 ("edit the command by hand") for a
// command or entrypoint that reaches the database only through a ${VAR}
// whose env file line is rewritten: it follows the variable.
func (pl *planner) dropFollowedCommands(edges []*edge) {
	followed := map[[2]string]bool{}
	for _, e := range edges {
		if e.v.env == nil || e.v.ref == "" {
			continue
		}
		for _, u := range pl.p.varUses(e.v.ref) {
			key, _, _ := strings.Cut(u.path, ".")
			if key == "command" || key == "entrypoint" {
				followed[[2]string{u.service, key}] = true
			}
		}
	}
	pl.findings = slices.DeleteFunc(pl.findings, func(f Finding) bool {
		return f.Code == "UDS127" && followed[[2]string{f.Service, f.Key}]
	})
}

// otherUses lists the uses of e's env file line that would break if it
// were rewritten, given the services that get the socket volume.
func (pl *planner) otherUses(e *edge, mounted map[string]bool) []string {
	if e.v.env == nil {
		return nil
	}
	var out []string
	if e.v.ref != "" {
		for _, u := range pl.p.varUses(e.v.ref) {
			if !mounted[u.service] || u.path == "build" || strings.HasPrefix(u.path, "build.") {
				out = append(out, u.String())
			}
		}
		return out
	}
	abs, _ := filepath.Abs(e.v.env.path)
	for _, name := range pl.p.serviceOrder() {
		if mounted[name] {
			continue
		}
		for _, f := range pl.p.model.Services[name].EnvFiles {
			if f.Path == abs || f.Path == e.v.env.path {
				out = append(out, fmt.Sprintf("%s's env_file", name))
			}
		}
	}
	return slices.Compact(out)
}

func (pl *planner) warnShared(e *edge, other []string) {
	v := e.v
	what := v.key + " in " + v.pos.File
	if v.ref != "" {
		what = v.ref + " in " + v.pos.File
	}
	pl.findings.add("UDS160", v.pos, v.service, v.key,
		fmt.Sprintf("%s/%s comes from %s, which is also used by %s without the socket volume: rewriting it would break them, so %s/%s is left on TCP; give %s its own value in environment: to migrate it", v.service, v.key, what, strings.Join(other, ", "), v.service, v.key, v.service))
}
