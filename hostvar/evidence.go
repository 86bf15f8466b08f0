package hostvar

import (
	"fmt"
	"strings"

	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// TCPUse keeps (UDS120) a host variable that something in the service
// dials as a TCP host name or pastes into a URL: its own compose command,
// entrypoint or healthcheck test (`until nc -z $$PGHOST 5432`), or a file
// of the project that reaches its container (an entrypoint's wait,
// application.properties, a config that builds
// f"postgresql://...@{os.environ['PGHOST']}:5432/..."). A socket directory
// there breaks that use whatever driver also reads the variable, so
// PGHOST, which libpq reads, is held to it as any application's host
// variable is. When the user vouches for the variable (--host-var), only a
// paste into a URL keeps it: that text is broken by any directory, while a
// wait the tool sees may be one that never runs (a build stage's script).
// nil when nothing in the project keeps it.
func (q Query) TCPUse() *Stay {
	v := q.Var
	if st := q.pastedInEnv(); st != nil {
		return st
	}
	if q.UserVouches() {
		verdict, ok := evidence.FindPasted(q.Scopes.Of(v.Service), v.Key)
		if !ok {
			return nil
		}
		return &Stay{Code: "UDS120", Msg: fmt.Sprintf("%s/%s names %s, and --host-var %s/%s vouches that a driver takes a socket directory there, but the project pastes it into a URL: %s:%d: %s. Left unchanged, flag or not: %s",
			v.Service, v.Key, q.DB, v.Service, v.Key, verdict.File, verdict.Line, verdict.Reason, q.advice(verdict))}
	}
	verdict, at, ok := q.command(v.Service, v.Key)
	if !ok {
		verdict, ok = evidence.Find(q.Scopes.Of(v.Service), v.Key)
		if base := q.Scopes.OpaqueBase(v.Service); base != "" && (!ok || verdict.Directory) {
			// The base image may copy the context (ONBUILD): a TCP use
			// there keeps the value, as it would with COPY . . (a wait
			// that never ends otherwise); a reader that takes a
			// directory proves nothing, the file may not be there.
			if cv, found := evidence.Find(q.Scopes.ContextScope(v.Service), v.Key); found && !cv.Directory {
				verdict, ok = cv, true
				verdict.Reason += " (if " + base + " copies the build context into the image by ONBUILD, as the Dockerfile copies nothing itself)"
			}
		}
		if !ok || verdict.Directory {
			return nil
		}
		at = fmt.Sprintf("%s:%d", verdict.File, verdict.Line)
	}
	if verdict.Advice != "" {
		return &Stay{Code: "UDS120", Msg: fmt.Sprintf("%s/%s names %s, and the project shows a consumer that takes no socket directory: %s: %s. Left unchanged: %s",
			v.Service, v.Key, q.DB, at, verdict.Reason, q.advice(verdict))}
	}
	return &Stay{Code: "UDS120", Msg: fmt.Sprintf("%s/%s names %s, and the project shows its consumer: %s: %s. Left unchanged: write that URL in socket form (jdbc:postgresql://localhost:%d/DB?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=%s/.s.PGSQL.%d, a single $ in a file compose does not read) and mount %s's socket volume",
		v.Service, v.Key, q.DB, at, verdict.Reason, q.DBPort, q.MountPath, q.DBPort, q.DB)}
}

// pastedInEnv keeps (UDS120) a host variable that another value of the
// service's environment pastes into a URL through compose's or the env
// file's interpolation (trial 15, nestjs-prisma-starter: .env's
// DATABASE_URL=postgresql://...@${DB_HOST}:${DB_PORT}/blog, and DB_HOST
// read by nothing else): a directory there gives
// postgresql://...@/var/run/postgresql:5432/blog, which Prisma refuses,
// flag or not. The URL itself is the value to migrate.
func (q Query) pastedInEnv() *Stay {
	v := q.Var
	for _, w := range q.Project.ServiceEnv(v.Service) {
		if w.Key == v.Key {
			continue
		}
		verdict, ok := evidence.PastedInValue(w.Raw, v.Key)
		if !ok {
			continue
		}
		return &Stay{Code: "UDS120", Msg: fmt.Sprintf("%s/%s names %s, and %s/%s (%s) is a URL built from it by interpolation: %s. Left unchanged, --host-var or not: %s/%s is the value to migrate, in the socket form its reader takes (it then no longer needs %s)",
			v.Service, v.Key, q.DB, v.Service, w.Key, w.Pos, verdict.Reason, v.Service, w.Key, v.Key)}
	}
	return nil
}

// advice is a verdict's advice with the query's socket directory and
// server in place of evidence's stand-ins.
func (q Query) advice(v evidence.Verdict) string {
	a := strings.ReplaceAll(v.Advice, evidence.SocketDirWord, q.MountPath)
	return strings.ReplaceAll(a, "the database's socket volume", q.DB+"'s socket volume")
}

// command returns the verdict of the service's own command,
// entrypoint or healthcheck test about key (evidence.FindInCommand), and
// where that key is written ("compose.yml:9 (command)").
func (q Query) command(service, key string) (evidence.Verdict, string, bool) {
	svc := q.Project.Model.Services[service]
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
	src, node := q.Project.ServiceNode(service)
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
