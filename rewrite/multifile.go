package rewrite

import (
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/yamledit"
)

// A project read from several compose files (compose.yml plus
// compose.override.yml, or -f base -f prod) is run in several
// combinations: the base file alone, the base with each override. Every
// file is merged over the base, so a socket mount written where the socket
// value is written, or in the base, is there in every combination that has
// the value (issue #21).

// serviceDef is one file's mapping of a service.
type serviceDef struct {
	src  *Source
	node *yaml.Node
}

// serviceDefs lists every mapping of a service, in the order compose merges
// them: the -f files, then the files they include.
func (p *project) serviceDefs(name string) []serviceDef {
	var out []serviceDef
	for _, src := range p.sources {
		if _, n := yamledit.OwnKey(servicesMapping(src), name); n != nil {
			out = append(out, serviceDef{src, yamledit.Deref(n)})
		}
	}
	return out
}

// alwaysLoaded reports whether src is loaded in every combination of the
// project's files: the first -f file, or a file included (include:) into it.
func (p *project) alwaysLoaded(src *Source) bool {
	i := slices.Index(p.sources, src)
	return i == 0 || i >= len(p.sources)-p.included
}

// serviceMounts lists a service's volumes: entries as compose merges them
// across files: each file's in order, an entry of a later file replacing
// an earlier file's entry at the same target, and a list tagged !reset or
// !override replacing all of them.
func (p *project) serviceMounts(name string) []mountRef {
	var out []mountRef
	for _, d := range p.serviceDefs(name) {
		seq, ms := p.mounts(d.src, d.node)
		if seq != nil && (seq.Tag == "!reset" || seq.Tag == "!override") {
			out = nil
		}
		for _, m := range ms {
			out = slices.DeleteFunc(out, func(o mountRef) bool { return o.target == m.target && o.src != d.src })
		}
		out = append(out, ms...)
	}
	return out
}

// imageHome is the mapping that defines what a service runs: the first
// that sets image:, build: or extends:, else the first that names the
// service. A database's socket mount goes there, so the base file that
// defines the server is valid alone.
func (p *project) imageHome(name string) serviceDef {
	defs := p.serviceDefs(name)
	for _, d := range defs {
		for _, k := range []string{"image", "build", "extends"} {
			if kn, _ := yamledit.MapGet(d.node, k); kn != nil {
				return d
			}
		}
	}
	if len(defs) == 0 {
		return serviceDef{}
	}
	return defs[0]
}

// mountHomes are the mappings where a client's socket mount goes: the
// mapping in the file that holds each edited value (a value in an env file
// or an application's configuration file counts for imageHome), reduced to
// one when a file loaded in every combination is among them.
func (p *project) mountHomes(service string, edges []*edge) []serviceDef {
	var homes []serviceDef
	for _, e := range edges {
		h := p.imageHome(service)
		if e.cfg == nil && e.v.env == nil && e.v.src != nil {
			if _, n := yamledit.OwnKey(servicesMapping(e.v.src), service); n != nil {
				h = serviceDef{e.v.src, yamledit.Deref(n)}
			}
		}
		if h.src == nil {
			continue
		}
		if p.alwaysLoaded(h.src) {
			return []serviceDef{h}
		}
		if !slices.Contains(homes, h) {
			homes = append(homes, h)
		}
	}
	return homes
}

// declaresVolume reports whether src's own top-level volumes: declares name.
func declaresVolume(src *Source, name string) bool {
	_, vols := yamledit.OwnKey(src.Root, "volumes")
	kn, _ := yamledit.OwnKey(yamledit.Deref(vols), name)
	return kn != nil
}

// volumeDeclaredFor reports whether a mount of the named volume written in
// src finds its declaration in every combination that loads src: in src
// itself or in a file always loaded (this run's declarations count). With
// one -f file, compose's merged view decides (an included file's
// declaration counts).
func (pl *planner) volumeDeclaredFor(src *Source, name string) bool {
	if _, ok := pl.p.model.Volumes[name]; ok && len(pl.p.sources)-pl.p.included == 1 {
		return true
	}
	for _, s := range pl.p.sources {
		if s != src && !pl.p.alwaysLoaded(s) {
			continue
		}
		if declaresVolume(s, name) || pl.compose.topAdded[topVolume{s, name}] {
			return true
		}
	}
	return false
}

// topVolume is a top-level volume declared by this run, in one file.
type topVolume struct {
	src  *Source
	name string
}
