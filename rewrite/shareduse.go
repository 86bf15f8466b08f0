package rewrite

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// keepSharedEnv drops the edges whose value is an env file line that
// another use needs unchanged: a ${VAR} in a service that does not get the
// socket volume (a command of a job, an excluded service or one outside the
// selected --profile), in build.args (a build has no volumes), or an
// env_file loaded by such a service. Rewriting that line would move them to
// a socket they cannot reach. Each dropped value gets UDS160. followed are
// the commands ("service/key") that reach the database only through a
// kept value's variable.
func (se sharedEnv) keep(edges []*edge) ([]*edge, map[string]bool) {
	cl := se.cl
	for changed := true; changed; {
		changed = false
		mounted := map[string]bool{}
		for _, db := range cl.dbs {
			mounted[db.name] = true // a server mounts the volume and ignores client variables
		}
		for _, e := range edges {
			mounted[e.v.Service] = true
		}
		var kept []*edge
		for _, e := range edges {
			if other := (sharedEnv{cl}).otherUses(e, mounted); len(other) > 0 {
				(sharedEnv{cl}).warn(e, other)
				changed = true
				continue
			}
			kept = append(kept, e)
		}
		edges = kept
	}
	return edges, (sharedEnv{cl}).followed(edges)
}

// followedCommands are the commands and entrypoints ("service/key") that
// reach the database only through a ${VAR} whose env file line is
// rewritten: they follow the variable, so they need no manual step
// (UDS127).
func (se sharedEnv) followed(edges []*edge) map[string]bool {
	cl := se.cl
	followed := map[string]bool{}
	for _, e := range edges {
		if e.v.EnvFile == nil || e.v.Ref == "" {
			continue
		}
		for _, u := range cl.p.VarUses(e.v.Ref) {
			key, _, _ := strings.Cut(u.Path, ".")
			if key == "command" || key == "entrypoint" {
				followed[u.Service+"/"+key] = true
			}
		}
	}
	return followed
}

// otherUses lists the uses of e's env file line that would break if it
// were rewritten, given the services that get the socket volume.
func (se sharedEnv) otherUses(e *edge, mounted map[string]bool) []string {
	cl := se.cl
	if e.v.EnvFile == nil {
		return nil
	}
	var out []string
	if e.v.Ref != "" {
		for _, u := range cl.p.VarUses(e.v.Ref) {
			if !mounted[u.Service] || u.Path == "build" || strings.HasPrefix(u.Path, "build.") {
				out = append(out, u.String())
			}
		}
		return out
	}
	abs, _ := filepath.Abs(e.v.EnvFile.Path)
	for _, name := range cl.p.ServiceOrder() {
		if _, ignores := (inheritedVars{cl}).ignores(name, e.v.Key); mounted[name] || ignores {
			continue
		}
		for _, f := range cl.p.Model.Services[name].EnvFiles {
			if f.Path == abs || f.Path == e.v.EnvFile.Path {
				out = append(out, fmt.Sprintf("%s's env_file", name))
			}
		}
	}
	return slices.Compact(out)
}

func (se sharedEnv) warn(e *edge, other []string) {
	cl := se.cl
	v := e.v
	what := v.Key + " in " + v.Pos.File
	if v.Ref != "" {
		what = v.Ref + " in " + v.Pos.File
	}
	cl.note("UDS160", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s comes from %s, which is also used by %s without the socket volume: rewriting it would break them, so %s/%s is left on TCP; give %s its own value in environment: to migrate it", v.Service, v.Key, what, strings.Join(other, ", "), v.Service, v.Key, v.Service))
}
