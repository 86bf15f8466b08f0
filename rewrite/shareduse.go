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
// a socket they cannot reach. Each dropped value gets UDS132.
func (pl *planner) keepSharedEnv(edges []*edge) []*edge {
	for changed := true; changed; {
		changed = false
		mounted := map[string]bool{}
		for _, db := range pl.dbs {
			mounted[db.name] = true // a server mounts the volume and ignores client variables
		}
		for _, e := range edges {
			mounted[e.v.Service] = true
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
	pl.rep.Findings = slices.DeleteFunc(pl.rep.Findings, func(f Finding) bool {
		return f.Service == e.v.Service && f.Key == e.v.Key && (f.Code == "UDS150" || f.Code == "UDS152" || f.Code == "UDS170")
	})
}

// dropFollowedCommands withdraws UDS127 ("edit the command by hand") for a
// command or entrypoint that reaches the database only through a ${VAR}
// whose env file line is rewritten: it follows the variable.
func (pl *planner) dropFollowedCommands(edges []*edge) {
	followed := map[[2]string]bool{}
	for _, e := range edges {
		if e.v.EnvFile == nil || e.v.Ref == "" {
			continue
		}
		for _, u := range pl.p.VarUses(e.v.Ref) {
			key, _, _ := strings.Cut(u.Path, ".")
			if key == "command" || key == "entrypoint" {
				followed[[2]string{u.Service, key}] = true
			}
		}
	}
	pl.rep.Findings = slices.DeleteFunc(pl.rep.Findings, func(f Finding) bool {
		return f.Code == "UDS127" && followed[[2]string{f.Service, f.Key}]
	})
}

// otherUses lists the uses of e's env file line that would break if it
// were rewritten, given the services that get the socket volume.
func (pl *planner) otherUses(e *edge, mounted map[string]bool) []string {
	if e.v.EnvFile == nil {
		return nil
	}
	var out []string
	if e.v.Ref != "" {
		for _, u := range pl.p.VarUses(e.v.Ref) {
			if !mounted[u.Service] || u.Path == "build" || strings.HasPrefix(u.Path, "build.") {
				out = append(out, u.String())
			}
		}
		return out
	}
	abs, _ := filepath.Abs(e.v.EnvFile.Path)
	for _, name := range pl.p.ServiceOrder() {
		if _, ignores := (inheritedVars{pl}).ignores(name, e.v.Key); mounted[name] || ignores {
			continue
		}
		for _, f := range pl.p.Model.Services[name].EnvFiles {
			if f.Path == abs || f.Path == e.v.EnvFile.Path {
				out = append(out, fmt.Sprintf("%s's env_file", name))
			}
		}
	}
	return slices.Compact(out)
}

func (pl *planner) warnShared(e *edge, other []string) {
	v := e.v
	what := v.Key + " in " + v.Pos.File
	if v.Ref != "" {
		what = v.Ref + " in " + v.Pos.File
	}
	pl.rep.Add("UDS160", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s comes from %s, which is also used by %s without the socket volume: rewriting it would break them, so %s/%s is left on TCP; give %s its own value in environment: to migrate it", v.Service, v.Key, what, strings.Join(other, ", "), v.Service, v.Key, v.Service))
}
