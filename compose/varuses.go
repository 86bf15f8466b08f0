package compose

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/yamledit"
	"gopkg.in/yaml.v3"
)

// VarUse is one place a compose file refers to an interpolation variable.
type VarUse struct {
	Service string
	Path    string // key path inside the service: "command", "build.args.DATABASE_URL"
	Pos     finding.Pos
}

func (u VarUse) String() string {
	return fmt.Sprintf("%s's %s (%s)", u.Service, u.Path, u.Pos)
}

var refNameRE = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)`)

// RefName is the variable an interpolation reference ($NAME, ${NAME},
// ${NAME:-default}) names, or "" when ref is not one.
func RefName(ref string) string {
	if sub := refNameRE.FindStringSubmatch(ref); sub != nil {
		return sub[1]
	}
	return ""
}

// VarUses lists every place under services: (anchors and merge keys
// followed, every profile included) whose text refers to ${name}.
func (p *Project) VarUses(name string) []VarUse {
	var out []VarUse
	for _, src := range p.Sources {
		svcs := ServicesMapping(src)
		if svcs == nil {
			continue
		}
		for i := 0; i+1 < len(svcs.Content); i += 2 {
			svc := svcs.Content[i].Value
			walkScalars(svcs.Content[i+1], "", 0, func(path string, n *yaml.Node) {
				if refersTo(n.Value, name) {
					out = append(out, VarUse{Service: svc, Path: path, Pos: yamledit.NodePos(src, n)})
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
