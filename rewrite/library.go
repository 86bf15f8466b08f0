package rewrite

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// socketUses judges the uses of a client's value, seen in its service
// and the project files that reach it, that a socket form would break: a
// TCP dial of a host variable, a library the form needs that the build
// does not declare. Each method reports what it finds and says whether
// the value must stay on TCP.
type socketUses struct{ cl *collector }

// tcpHost reports (UDS120) a host variable that something in the
// service dials as a TCP host name or pastes into a pgjdbc URL: its own
// compose command, entrypoint or healthcheck test (`until nc -z $$PGHOST
// 5432`), or a file of the project that reaches its container (an
// entrypoint's wait, application.properties). A socket directory there
// breaks that use whatever driver also reads the variable, so PGHOST,
// which libpq reads, is held to it as any application's host variable is.
func (u socketUses) tcpHost(v compose.EnvVar, db *dbService) bool {
	verdict, at, ok := u.command(v.Service, v.Key)
	if !ok {
		verdict, ok = evidence.Find(u.cl.scopes.of(v.Service), v.Key)
		if !ok || verdict.Directory {
			return false
		}
		at = fmt.Sprintf("%s:%d", verdict.File, verdict.Line)
	}
	if verdict.Advice != "" {
		u.cl.note("UDS120", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s names %s, and the project shows a consumer that takes no socket directory: %s: %s. Left unchanged: %s",
				v.Service, v.Key, db.name, at, verdict.Reason, verdict.Advice))
		return true
	}
	u.cl.note("UDS120", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s names %s, and the project shows its consumer: %s: %s. Left unchanged: write that URL in socket form (jdbc:postgresql://localhost:%d/DB?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=%s/.s.PGSQL.%d, a single $ in a file compose does not read) and mount %s's socket volume",
			v.Service, v.Key, db.name, at, verdict.Reason, db.port, u.cl.opts.MountPath, db.port, db.name))
	return true
}

// command returns the verdict of the service's own command,
// entrypoint or healthcheck test about key (evidence.FindInCommand), and
// where that key is written ("compose.yml:9 (command)").
func (u socketUses) command(service, key string) (evidence.Verdict, string, bool) {
	svc := u.cl.p.Model.Services[service]
	texts := []struct {
		key   string
		words []string
	}{{"command", svc.Command}, {"entrypoint", svc.Entrypoint}}
	if svc.HealthCheck != nil {
		texts = append(texts, struct {
			key   string
			words []string
		}{"healthcheck", svc.HealthCheck.Test})
	}
	src, node := u.cl.p.ServiceNode(service)
	for _, t := range texts {
		verdict, ok := evidence.FindInCommand(strings.Join(t.words, " "), key)
		if !ok {
			continue
		}
		at := service + "'s " + t.key
		if src != nil {
			n := node
			if kn, _ := yamledit.OwnKey(node, t.key); kn != nil {
				n = kn
			}
			pos := yamledit.NodePos(src, n)
			at = fmt.Sprintf("%s:%d (%s's %s)", pos.File, pos.Line, service, t.key)
		}
		verdict.Reason = strings.Replace(verdict.Reason, "by a script", "by the service's "+t.key, 1)
		verdict.Advice = strings.Replace(verdict.Advice, "make the script wait", "make the "+t.key+" wait", 1)
		return verdict, at, true
	}
	return evidence.Verdict{}, "", false
}

// libraryMissing reports (UDS135) a value whose socket form needs a
// library in the client (pgjdbc's socket factory, junixsocket) when the
// service's own build manifests reach the tool and none declares it: the
// application could not load the class the socket value names
// (ClassNotFoundException at connect), so the value stays on TCP. With no
// manifest in sight (a published image, a jar built elsewhere) the value
// migrates with UDS101's manual step, as before. where names the value
// for the message ("SPRING_DATASOURCE_URL", "spring.datasource.url in
// FILE").
func (u socketUses) libraryMissing(v compose.EnvVar, d *dialect.Dialect, db *dbService, where string) bool {
	if d == nil || d.Library == nil {
		return false
	}
	lib := d.Library
	scope := u.cl.scopes.of(v.Service)
	manifest, declared := evidence.Declares(scope, lib.Manifests, lib.Marker)
	if manifest == "" || declared {
		return false
	}
	which := manifest
	if abs := filepath.Join(scope.ProjectDir, filepath.FromSlash(manifest)); u.imageBuilt(v.Service, abs) {
		// the manifest may sit above the compose file's folder: name it
		// from there (../../../pom.xml)
		if rel, err := filepath.Rel(u.cl.p.Model.WorkingDir, abs); err == nil {
			manifest = filepath.ToSlash(rel)
		}
		which = manifest + " (its build makes the image " + u.cl.p.Model.Services[v.Service].Image + ")"
	}
	u.cl.note("UDS135", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s reaches %s over TCP, and %s's build manifest %s does not declare %s, which the socket form needs (its socket factory, org.newsclub.net.unix.AFUNIXSocketFactory): the application would fail to load it at connect, so %s is left unchanged. Add the dependency %s (type pom) to %s, then run the migration again",
			v.Service, v.Key, db.name, v.Service, which, lib.Marker, where, lib.Coordinates, manifest))
	return true
}

// imageBuilt reports whether manifest (absolute) is the build that makes
// the image a service without a build: of its own runs (imageBuilders).
func (u socketUses) imageBuilt(service, manifest string) bool {
	svc := u.cl.p.Model.Services[service]
	return svc.Build == nil && svc.Image != "" && slices.Contains(u.cl.scopes.imageBuilders(svc.Image), manifest)
}
