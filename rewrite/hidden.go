package rewrite

import (
	"fmt"
	"strings"
)

// warnHidden reports clients that depend on a database (depends_on, links)
// but hold no connection value the tool can see: their URL is in a mounted
// config file, baked into the image, or assembled in a script, and still
// uses TCP unless someone changes it.
func (pl *planner) warnHidden(dbs []*dbService, edges []*edge) {
	seen := map[string]bool{}
	for _, e := range edges {
		seen[e.v.service] = true
	}
	// A service already reported (split variables, a URL in its command,
	// an unknown scheme) needs no second, vaguer warning.
	for _, f := range pl.findings {
		seen[f.Service] = true
	}
	isDB := map[string]bool{}
	for _, db := range dbs {
		isDB[db.name] = true
	}
	for _, name := range pl.p.serviceOrder() {
		if seen[name] || isDB[name] || contains(pl.opts.Exclude, name) || (len(pl.opts.Only) > 0 && !contains(pl.opts.Only, name)) {
			continue
		}
		svc := pl.p.model.Services[name]
		if poolerOf(svc.Image) {
			continue
		}
		var dep *dbService
		for _, db := range dbs {
			if _, ok := svc.DependsOn[db.name]; ok {
				dep = db
			}
			for target := range linkAliases(svc) {
				if linkAliases(svc)[target] == db.name {
					dep = db
				}
			}
		}
		if dep == nil || pl.usesSocket(name) {
			continue
		}
		if file, line := pl.hiddenConnection(name, dep); file != "" {
			pl.warnFile(file, line, 1, "UDS131", name, file,
				fmt.Sprintf("%s depends on %s and %s:%d names it in a form the tool does not edit (a literal host in code or a format it does not read): point that connection at %s (socket directory) by hand, and mount %s's socket volume on %s", name, dep.name, file, line, pl.opts.MountPath, dep.name, name))
			continue
		}
		src, _ := pl.p.serviceNode(name)
		kn, _ := ownKey(deref(pl.servicesNode(src)), name)
		if len(pl.reachingFiles(name)) == 0 {
			pl.warnAt(src, kn, "UDS131", name, "image",
				fmt.Sprintf("%s depends on %s but none of its environment values connects to it, and no file of the project reaches it (no build context here, no mounted source): the connection is baked into the image %s or built by a script; point it at %s (socket directory) or add the socket volume by hand", name, dep.name, svc.Image, pl.opts.MountPath))
			continue
		}
		pl.warnAt(src, kn, "UDS131", name, "",
			fmt.Sprintf("%s depends on %s but none of its environment values connects to it: the connection is in a mounted config file, baked into the image or built by a script, which the tool cannot see; point it at %s (socket directory) or add the socket volume by hand", name, dep.name, pl.opts.MountPath))
	}
}

// usesSocket reports whether a service already has a socket-form value.
func (pl *planner) usesSocket(service string) bool {
	if pl.cfgSocket[service] != "" {
		return true
	}
	for _, v := range pl.p.serviceEnv(service) {
		if _, _, socket := classify(v.value); socket {
			return true
		}
		if (v.key == "PGHOST" || appHostRE.MatchString(v.key)) && strings.HasPrefix(v.value, "/") {
			return true
		}
	}
	return false
}
