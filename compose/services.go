package compose

import (
	"path"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/uds-migrate/uds-migrate/yamledit"
	"gopkg.in/yaml.v3"
)

// Mount is a volumes: entry as written in YAML.
type Mount struct {
	Src      *Source
	Node     *yaml.Node // the list item
	Source   string
	Target   string
	ReadOnly bool
	Bind     bool
	// InFlow: the item is written in a flow list ([a:b, c:d]), so a
	// scalar edit of it ends at "," or "]".
	InFlow bool
}

// EnvEntry is one environment variable as written in a service.
type EnvEntry struct {
	Key    string
	Node   *yaml.Node
	Prefix string
	InFlow bool
	// Passthrough is a list item "- KEY" or a map entry "KEY:" with no
	// value: compose takes the value from the environment it
	// interpolates with.
	Passthrough bool
}

// ServiceNode finds the YAML mapping of a service in the last source that
// defines it (later -f files override earlier ones).
func (p *Project) ServiceNode(name string) (*Source, *yaml.Node) {
	for i := len(p.Sources) - 1; i >= 0; i-- {
		_, svcs := yamledit.OwnKey(p.Sources[i].Root, "services")
		if _, n := yamledit.OwnKey(yamledit.Deref(svcs), name); n != nil {
			return p.Sources[i], yamledit.Deref(n)
		}
	}
	return nil, nil
}

// ServicesMapping returns the services: mapping of one file (anchors
// followed), or nil when the file has none.
func ServicesMapping(src *Source) *yaml.Node {
	_, svcs := yamledit.OwnKey(src.Root, "services")
	if svcs = yamledit.Deref(svcs); svcs == nil || svcs.Kind != yaml.MappingNode {
		return nil
	}
	return svcs
}

// ServiceOrder lists service names in the order the first file writes them,
// then any that only later files add: output and findings follow the file.
func (p *Project) ServiceOrder() []string {
	var names []string
	seen := map[string]bool{}
	for _, src := range p.Sources {
		svcs := ServicesMapping(src)
		if svcs == nil {
			continue
		}
		for i := 0; i+1 < len(svcs.Content); i += 2 {
			n := svcs.Content[i].Value
			if _, ok := p.Model.Services[n]; ok && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// HostNames lists the names under which other services reach svc on the
// compose networks.
func HostNames(svc types.ServiceConfig) []string {
	names := []string{svc.Name}
	if svc.ContainerName != "" {
		names = append(names, svc.ContainerName)
	}
	if svc.Hostname != "" {
		// Not hostname.domainname: the engine's DNS does not answer it
		// (see names.go).
		names = append(names, svc.Hostname)
	}
	for _, nw := range svc.Networks {
		if nw != nil {
			names = append(names, nw.Aliases...)
		}
	}
	// Each name once (container_name: postgres on service postgres, an
	// alias on two networks); DNS names compare without case.
	seen := map[string]bool{}
	return slices.DeleteFunc(names, func(n string) bool {
		k := strings.ToLower(n)
		dup := seen[k]
		seen[k] = true
		return dup
	})
}

// LinkAliases maps the aliases a client gives to linked services
// ("db:database" → database → db).
func LinkAliases(svc types.ServiceConfig) map[string]string {
	out := map[string]string{}
	for _, l := range append(append([]string{}, svc.Links...), svc.ExternalLinks...) {
		target, alias, ok := strings.Cut(l, ":")
		if !ok {
			alias = target
		}
		out[strings.ToLower(alias)] = target
	}
	return out
}

func EnvValue(svc types.ServiceConfig, key string) string {
	if v, ok := svc.Environment[key]; ok && v != nil {
		return *v
	}
	return ""
}

// EnvEntries lists the environment variables written in a service mapping,
// in either form (map or "- KEY=value" list), following merge keys: for a
// map, keys written in the service win over merged ones.
func EnvEntries(svc *yaml.Node) []EnvEntry {
	_, env := yamledit.MapGet(svc, "environment")
	env = yamledit.Deref(env)
	if env == nil {
		return nil
	}
	inFlow := env.Style&yaml.FlowStyle != 0
	var out []EnvEntry
	switch env.Kind {
	case yaml.SequenceNode:
		for _, it := range env.Content {
			it = yamledit.Deref(it)
			if it.Kind != yaml.ScalarNode {
				continue
			}
			k, _, ok := strings.Cut(it.Value, "=")
			if !ok {
				// Prefix: an edit writes KEY=value, not a bare value
				// (which would pass a variable of that name through).
				out = append(out, EnvEntry{Key: it.Value, Node: it, Prefix: it.Value + "=", InFlow: inFlow, Passthrough: true})
				continue
			}
			out = append(out, EnvEntry{Key: k, Node: it, Prefix: k + "=", InFlow: inFlow})
		}
	case yaml.MappingNode:
		seen := map[string]bool{}
		var walk func(m *yaml.Node)
		walk = func(m *yaml.Node) {
			for i := 0; i+1 < len(m.Content); i += 2 {
				k := m.Content[i]
				if yamledit.IsMergeKey(k) || seen[k.Value] {
					continue
				}
				seen[k.Value] = true
				v := m.Content[i+1]
				if v.Kind == yaml.AliasNode {
					v = v.Alias
				}
				if v.Kind == yaml.ScalarNode {
					// KEY: with no value (or null) passes the shell's
					// value through, as "- KEY" does (Compose
					// Specification, services.environment).
					out = append(out, EnvEntry{Key: k.Value, Node: v, InFlow: m.Style&yaml.FlowStyle != 0, Passthrough: v.Tag == "!!null"})
				}
			}
			for _, src := range yamledit.MergeSources(m) {
				walk(src)
			}
		}
		walk(env)
	}
	return out
}

// Mounts lists the volumes: entries of a service as written (following
// merge keys), with short and long syntax parsed.
func (p *Project) Mounts(src *Source, svcNode *yaml.Node) (seq *yaml.Node, out []Mount) {
	_, seq = yamledit.MapGet(svcNode, "volumes")
	seq = yamledit.Deref(seq)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return seq, nil
	}
	for _, it := range seq.Content {
		m := Mount{Src: src, Node: it, InFlow: seq.Style&yaml.FlowStyle != 0}
		it = yamledit.Deref(it)
		switch it.Kind {
		case yaml.ScalarNode:
			v, err := p.Interpolate(it.Value)
			if err != nil {
				continue
			}
			parts := strings.Split(v, ":")
			if len(parts) < 2 {
				continue
			}
			m.Source, m.Target = parts[0], parts[1]
			if len(parts) > 2 {
				m.ReadOnly = slices.Contains(strings.Split(parts[2], ","), "ro")
			}
			m.Bind = IsBindSource(m.Source)
		case yaml.MappingNode:
			get := func(k string) string {
				_, n := yamledit.MapGet(it, k)
				if n = yamledit.Deref(n); n == nil || n.Kind != yaml.ScalarNode {
					return ""
				}
				v, _ := p.Interpolate(n.Value)
				return v
			}
			m.Source, m.Target = get("source"), get("target")
			m.ReadOnly = get("read_only") == "true"
			m.Bind = get("type") == "bind"
			if get("type") == "tmpfs" {
				m.Source = ""
			}
		default:
			continue
		}
		m.Target = path.Clean(m.Target)
		out = append(out, m)
	}
	return seq, out
}

// IsBindSource tells a host path from a volume name in short syntax.
func IsBindSource(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "$")
}
