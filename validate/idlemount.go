package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// checkIdleMounts reports (UDS222) a client that mounts a database's
// socket volume while nothing it reads uses it and a connection value of
// its environment still names the database as a TCP host: a migration left
// half done (the value set in the shell, UDS111, then never changed), in
// which the mount does nothing and the application still dials TCP. A
// value, configuration setting, command or entrypoint that names the
// mount's directory counts as a use, so a client with one value migrated
// and another left on TCP on purpose (UDS153) is not reported.
func (v *validator) checkIdleMounts() {
	settings := v.reads().ConfigSettings()
	for _, name := range v.p.ServiceOrder() {
		if v.dbs[name] {
			continue
		}
		svc := v.p.Model.Services[name]
		env := v.p.ServiceEnv(name)
		for _, m := range v.p.ServiceMounts(name) {
			db, ok := v.dbMount[v.sourceKey(m)]
			if !ok || m.Source == "" || db.Name == name {
				continue
			}
			if !m.ReadOnly {
				v.findings.Add("UDS223", yamledit.NodePos(m.Src, yamledit.Deref(m.Node)), name, "volumes",
					fmt.Sprintf("%s mounts %s's socket volume %s read-write: connecting needs only read access to the directory (the migration mounts clients :ro), and a writable mount lets %s remove or replace the socket for every other client; mount it read-only", name, db.Name, m.Source, name))
			}
			uses := func(s string) bool { return strings.Contains(s, m.Target) }
			if uses(strings.Join(svc.Command, " ")) || uses(strings.Join(svc.Entrypoint, " ")) ||
				slices.ContainsFunc(settings, func(c analyze.ConfigSetting) bool { return c.Service == name && uses(c.Value.Value) }) {
				continue
			}
			var tcp []compose.EnvVar
			used := false
			for _, ent := range env {
				val, err := v.p.Interpolate(ent.Raw)
				if err != nil {
					continue
				}
				if uses(val) {
					used = true
					break
				}
				hosts, d, socket := dialect.Classify(val)
				if d == "" || socket {
					continue
				}
				for _, h := range hosts {
					if slices.ContainsFunc(db.Names, func(n string) bool { return strings.EqualFold(n, h) }) {
						tcp = append(tcp, ent)
						break
					}
				}
			}
			if used || len(tcp) == 0 {
				continue
			}
			var keys []string
			for _, e := range tcp {
				keys = append(keys, fmt.Sprintf("%s/%s (%s)", name, e.Key, e.Pos))
			}
			v.findings.Add("UDS222", yamledit.NodePos(m.Src, yamledit.Deref(m.Node)), name, "volumes",
				fmt.Sprintf("%s mounts %s's socket volume %s at %s, but nothing %s reads uses it: %s still reach%s %s over TCP, so the mount does nothing; set %s to the socket form (uds-migrate plan prints it), or drop the mount",
					name, db.Name, m.Source, m.Target, name, strings.Join(keys, ", "), map[bool]string{true: "es", false: ""}[len(tcp) == 1], db.Name, map[bool]string{true: "it", false: "them"}[len(tcp) == 1]))
		}
	}
}
