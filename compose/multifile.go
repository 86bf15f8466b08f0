package compose

import (
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/yamledit"
)

// A project read from several compose files (yml plus
// override.yml, or -f base -f prod) is run in several
// combinations: the base file alone, the base with each override. Every
// file is merged over the base, so a socket mount written where the socket
// value is written, or in the base, is there in every combination that has
// the value (issue #21).

// ServiceDef is one file's mapping of a service.
type ServiceDef struct {
	Src  *Source
	Node *yaml.Node
}

// ServiceDefs lists every mapping of a service, in the order compose merges
// them: the -f files, then the files they include.
func (p *Project) ServiceDefs(name string) []ServiceDef {
	var out []ServiceDef
	for _, src := range p.Sources {
		if _, n := yamledit.OwnKey(ServicesMapping(src), name); n != nil {
			out = append(out, ServiceDef{Src: src, Node: yamledit.Deref(n)})
		}
	}
	return out
}

// AlwaysLoaded reports whether src is loaded in every combination of the
// project's files: the first -f file, or a file included (include:) into it.
func (p *Project) AlwaysLoaded(src *Source) bool {
	i := slices.Index(p.Sources, src)
	return i == 0 || i >= len(p.Sources)-p.Included
}

// ServiceMounts lists a service's volumes: entries as compose merges them
// across files: each file's in order, an entry of a later file replacing
// an earlier file's entry at the same target, and a list tagged !reset or
// !override replacing all of them.
func (p *Project) ServiceMounts(name string) []Mount {
	var out []Mount
	for _, d := range p.ServiceDefs(name) {
		seq, ms := p.Mounts(d.Src, d.Node)
		if seq != nil && (seq.Tag == "!reset" || seq.Tag == "!override") {
			out = nil
		}
		for _, m := range ms {
			out = slices.DeleteFunc(out, func(o Mount) bool { return o.Target == m.Target && o.Src != d.Src })
		}
		out = append(out, ms...)
	}
	return out
}

// ImageHome is the mapping that defines what a service runs: the first
// that sets image:, build: or extends:, else the first that names the
// service. A database's socket mount goes there, so the base file that
// defines the server is valid alone.
func (p *Project) ImageHome(name string) ServiceDef {
	defs := p.ServiceDefs(name)
	for _, d := range defs {
		for _, k := range []string{"image", "build", "extends"} {
			if kn, _ := yamledit.MapGet(d.Node, k); kn != nil {
				return d
			}
		}
	}
	if len(defs) == 0 {
		return ServiceDef{}
	}
	return defs[0]
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
func (e *Editor) volumeDeclaredFor(src *Source, name string) bool {
	if _, ok := e.p.Model.Volumes[name]; ok && len(e.p.Sources)-e.p.Included == 1 {
		return true
	}
	for _, s := range e.p.Sources {
		if s != src && !e.p.AlwaysLoaded(s) {
			continue
		}
		if declaresVolume(s, name) || e.topAdded[topVolume{s, name}] {
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

// DefaultFileNames are the files docker compose reads when no -f is
// given; in their folder, compose.*.yml and docker-compose.*.yml are the
// project's overrides (compose.override.yml, compose.prod.yml).
var DefaultFileNames = []string{"compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"}

// OverridePatterns are the override files of a folder that holds a default
// compose file.
var OverridePatterns = []string{"compose.*.yaml", "compose.*.yml", "docker-compose.*.yaml", "docker-compose.*.yml"}
