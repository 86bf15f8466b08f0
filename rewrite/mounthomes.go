package rewrite

import (
	"slices"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// mountHomes are the mappings where a client's socket mount goes: the
// mapping in the file that holds each edited value (a value in an env file
// or an application's configuration file counts for imageHome), reduced to
// one when a file loaded in every combination is among them.
func (p *project) mountHomes(service string, edges []*edge) []compose.ServiceDef {
	var homes []compose.ServiceDef
	for _, e := range edges {
		h := p.ImageHome(service)
		if (e.cfg == nil || e.cfg.src != nil) && e.v.EnvFile == nil && e.v.Src != nil {
			if _, n := yamledit.OwnKey(compose.ServicesMapping(e.v.Src), service); n != nil {
				h = compose.ServiceDef{Src: e.v.Src, Node: yamledit.Deref(n)}
			}
		}
		if h.Src == nil {
			continue
		}
		if p.AlwaysLoaded(h.Src) {
			return []compose.ServiceDef{h}
		}
		if !slices.Contains(homes, h) {
			homes = append(homes, h)
		}
	}
	return homes
}
