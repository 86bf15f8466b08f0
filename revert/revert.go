// Package revert is the inverse migration, for moving to Kubernetes or to
// separate hosts: every client value that reaches a database through its
// socket volume goes back to TCP (host = the database service, port = its
// server port), the socket mounts are removed from clients and database,
// and the named volume is removed when nothing else mounts it. SSL
// settings that the migration removed are not restored (the migration
// said so when it removed them).
//
// It starts from the analysis' databases (analyze.Databases), edits
// through its own editor and report, and checks its output with validate:
// it shares the migration's knowledge (analyze, hostvar, dialect), not its
// plan.
package revert

import (
	"context"
	"fmt"
	"net"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/pgserver"
	"github.com/uds-migrate/uds-migrate/proxy"
	"github.com/uds-migrate/uds-migrate/validate"
)

// Revert reverts a compose project (one or more -f files, in order) and
// verifies the result: the output loads, and validates without an error
// the input did not have (a client left pointing at a socket directory it
// no longer mounts: *validate.Error). It returns a *finding.PosError
// (file:line:col) for input it cannot read as a compose project.
func Revert(ctx context.Context, inputs []compose.Input, opts analyze.Options) (res *analyze.Result, err error) {
	defer func() { err = validate.ScrubErr(err, compose.InputSecrets(inputs)) }()
	p, err := analyze.Load(ctx, inputs, opts)
	if err != nil {
		return nil, err
	}
	res, err = loaded(p, opts)
	if err != nil {
		return nil, err
	}
	if res.Changed() {
		out, opts2, err := analyze.Reload(ctx, inputs, res, opts)
		if err != nil {
			return nil, fmt.Errorf("internal error: the reverted output does not load: %w", err)
		}
		if bad := validate.NewErrors(validate.Loaded(p, opts), validate.Loaded(out, opts2)); len(bad) > 0 {
			return nil, &validate.Error{Findings: bad, Revert: true}
		}
	}
	return res, nil
}

// loaded reverts a loaded project: the result holds every file with its
// edits, not yet verified. The error is a --db or --socket-dir that names
// no usable service.
func loaded(p *analyze.Project, opts analyze.Options) (*analyze.Result, error) {
	a, err := analyze.Databases(p, opts)
	if err != nil {
		return nil, err
	}
	rv := &reverter{p: p, opts: opts, rep: &finding.Report{}}
	rv.ed = compose.NewEditor(p.Project, rv.rep)
	dropTop := map[*compose.Source][]string{} // top-level volumes to remove, per file
	// The socket values clients read from configuration files, documents
	// in their environment and Rails' database.yml: reverted in place.
	sockets, notes, scopes := analyze.SocketSettings(p, opts, a)
	analyze.ReportNotes(notes, rv.ed, rv.rep)
	rv.settings, rv.scopes, rv.settingDone = map[string][]analyze.SocketSetting{}, scopes, map[string]bool{}
	for _, s := range sockets {
		rv.settings[s.Service] = append(rv.settings[s.Service], s)
	}
	for _, db := range a.DBs {
		if vol := rv.revertDB(db); vol != "" {
			// Every file's declaration: a migration of several files
			// declares the volume in each file that mounts it without
			// the base.
			for _, src := range p.Sources {
				dropTop[src] = append(dropTop[src], vol)
			}
		}
	}
	for _, src := range p.Sources {
		rv.ed.RemoveTopVolumes(src, dropTop[src])
	}
	if err := rv.ed.Flush(); err != nil {
		return nil, err
	}
	res, err := analyze.NewResult(p, a.DBs, rv.ed, rv.rep, func(*analyze.DB) string { return "" })
	if err != nil {
		return nil, err
	}
	for _, f := range res.Findings {
		if f.Code == "UDS111" { // revert's only UDS111: a socket value it leaves
			res.SocketsKept++
		}
	}
	if !res.Changed() {
		res.NothingReason = "no service reaches a PostgreSQL service through a socket volume"
		if res.SocketsKept > 0 {
			res.NothingReason = "every socket value is one revert leaves as it is (UDS111 above), so the socket mounts stay"
		}
		if proxy.Present(p.Project) {
			res.Notes = append(res.Notes, "revert covers PostgreSQL only: the nginx → app server migration is not reverted (undo it with git)")
		}
	}
	return res, nil
}

// reverter brings the clients of a project's databases back to TCP,
// through its editor and report; settings are the socket values each
// client reads from a configuration file or document (service → values),
// settingDone the ones edited ("path:offset": a file several services
// read is edited once).
type reverter struct {
	p           *analyze.Project
	opts        analyze.Options
	ed          *compose.Editor
	rep         *finding.Report
	settings    map[string][]analyze.SocketSetting
	settingDone map[string]bool
	scopes      *hostvar.Scopes // the files that reach each service, for evidence
}

// revertDB brings db's clients back to TCP and removes the socket mounts
// nothing uses any more; when the socket volume goes too, it returns its
// name, for RemoveTopVolumes.
func (pl *reverter) revertDB(db *analyze.DB) string {
	ms := pl.p.ServiceMounts(db.Name)
	var sock *compose.Mount
	for i, m := range ms {
		if db.ListensIn(db.ConfigDir, m.Target) && m.Source != "" && !m.Bind {
			sock = &ms[i]
		}
	}
	if sock == nil {
		return ""
	}
	users := 0
	for _, name := range pl.p.ServiceOrder() {
		if name == db.Name {
			continue
		}
		for _, m := range pl.p.ServiceMounts(name) {
			if m.Source != sock.Source {
				continue
			}
			unused := pl.revertClient(name, m, db)
			if !pl.revertSettings(name, m, db) {
				unused = false
			}
			if unused {
				pl.ed.RemoveMount(name, m)
			} else {
				users++
			}
		}
	}
	if users > 0 || !pl.p.PlainVolume(sock.Source) {
		// Still used, or a volume the user configured (external, name,
		// driver): it was there before the migration, so it stays.
		return ""
	}
	pl.ed.RemoveMount(db.Name, *sock)
	return sock.Source
}

// revertClient rewrites the values of one client that use the socket in
// mount m; it reports whether the mount is now unused by that client.
func (pl *reverter) revertClient(service string, m compose.Mount, db *analyze.DB) bool {
	unused := true
	for _, ent := range pl.p.ServiceEnv(service) {
		raw, val := ent.Raw, ent.Value
		if path.Clean(val) == m.Target && hostvar.IsSocketVar(pl.p.Project, service, ent.Key) {
			// the variable the migration added beside a host variable that
			// stayed (TeslaMate's DATABASE_SOCKET_DIR): it goes, and the
			// image connects to the host again
			if pl.ed.RemoveEnv(ent, "the image would keep connecting to the socket") {
				pl.rep.Change(finding.Change{Kind: "value", Pos: ent.Pos, Service: service, Key: ent.Key,
					Dialect: dialect.AppHostVar(false).Name, Before: raw, Reason: "reach " + db.Name + " over TCP: the host variable beside it names it"})
			} else {
				unused = false
			}
			continue
		}
		if dir, tcp := revertHost(val, db.Name); path.Clean(dir) == m.Target && hostvar.WrittenAsDir(pl.p.Project, pl.scopes, pl.opts.HostVars, service, ent.Key) {
			if pl.removeOverride(ent, db) || tcp == db.Name && pl.removeSetDefault(ent, db) {
				continue
			}
			// ${DATABASE_HOST:-/var/run/postgresql}, whose default the
			// migration rewrote (UDS143): the default goes back, inside
			// the reference, as for a URL below.
			mk, enclose, err := analyze.MaskValue(pl.p, ent)
			if err != nil {
				mk, _ = interp.Mask(raw)
				enclose = nil
			}
			out := tcp
			if enclose != nil {
				mk, out = enclose(mk, out)
			}
			if pl.ed.SetValue(ent, mk, out) {
				pl.rep.Change(finding.Change{Kind: "value", Pos: ent.Pos, Service: service, Key: ent.Key,
					Dialect: dialect.HostVar(ent.Key).Name, Before: raw, After: mk.Unmask(out), Reason: "reach " + db.Name + " over TCP"})
			}
			continue
		}
		_, dname, socket := dialect.Classify(val)
		if !socket {
			continue
		}
		// A socket value whose path revert cannot read (a JDBC factory
		// that takes the path from elsewhere): it may use this mount, so
		// the mount stays, loudly.
		spRaw := dialect.SocketPathOf(val, dname)
		if spRaw == "" {
			pl.rep.Add("UDS111", ent.Pos, service, ent.Key,
				fmt.Sprintf("%s/%s is in socket form, and revert cannot tell which socket it uses: the mount of %s stays; point it at %s:%d by hand, then remove the mount", service, ent.Key, m.Source, db.Name, db.Port))
			unused = false
			continue
		}
		// Inside the mount, not a sibling that shares its prefix
		// (/var/run/postgresql-pgbouncer is not in /var/run/postgresql).
		if sp := path.Clean(spRaw); sp != m.Target && !strings.HasPrefix(sp, m.Target+"/") {
			continue
		}
		// A ${VAR:-default} whose default compose uses had its default
		// rewritten (UDS143): revert the default, inside the reference.
		mk, enclose, err := analyze.MaskValue(pl.p, ent)
		if err != nil {
			unused = false
			continue
		}
		out, err := dialect.FromSocket(dname, mk.Value, db.Name, socketPort(mk.Value, dname, db.Port))
		if err != nil {
			pl.rep.Add("UDS111", ent.Pos, service, ent.Key, fmt.Sprintf("%s/%s cannot be reverted as written (%s): the mount of %s stays; point it at %s:%d by hand, then remove the mount", service, ent.Key, dialect.RedactErr(err), m.Source, db.Name, db.Port))
			unused = false
			continue
		}
		if enclose != nil {
			mk, out = enclose(mk, out)
		}
		newRaw := mk.Unmask(out)
		if pl.ed.SetValue(ent, mk, out) {
			pl.rep.Change(finding.Change{Kind: "value", Pos: ent.Pos, Service: service, Key: ent.Key,
				Dialect: dname, Before: analyze.RedactValue(pl.p, dname, raw), After: analyze.RedactValue(pl.p, dname, newRaw), Reason: "reach " + db.Name + " over TCP"})
			pl.warnSSLDisable(service, ent.Key, ent.Pos, out, db)
		} else {
			unused = false
		}
	}
	return unused
}

// removeOverride removes an environment: entry that shadows an env_file
// line of the same service holding a TCP host that reaches db: what a
// migration writes where the line is shared with uses that keep TCP
// (UDS166), so revert gives back the file as it was and the line, never
// edited, takes over again. It reports whether it removed the entry.
func (pl *reverter) removeOverride(ent compose.EnvVar, db *analyze.DB) bool {
	if ent.EnvFile != nil || ent.Src == nil || !compose.IsOverride(ent) {
		return false
	}
	line := ""
	for _, ef := range pl.p.Model.Services[ent.Service].EnvFiles {
		if v := compose.EnvLookup(pl.p.EnvFileVars(ent.Service, ef.Path), ent.Key); v != "" {
			line = v // the last env file that sets it wins, as in compose
		}
	}
	if line == "" {
		return false
	}
	host := line
	if h, _, err := net.SplitHostPort(line); err == nil {
		host = h
	}
	if strings.HasPrefix(host, "/") || !slices.Contains(pl.p.Resolve(ent.Service, host).Services, db.Name) {
		return false
	}
	for _, d := range pl.p.ServiceDefs(ent.Service) {
		if d.Src == ent.Src && pl.ed.RemoveServiceEnv(d, ent) {
			pl.rep.Change(finding.Change{Kind: "value", Pos: ent.Pos, Service: ent.Service, Key: ent.Key,
				Dialect: dialect.HostVar(ent.Key).Name, Before: ent.Raw, After: "",
				Reason: fmt.Sprintf("removed: without it %s reads %s=%s from its env_file, which reaches %s over TCP", ent.Service, ent.Key, line, db.Name)})
			return true
		}
	}
	return false
}

// removeSetDefault removes a host variable whose service, without it,
// falls back to a default that reaches db (analyze.Fallback: the
// catalogued image's default, a code default): what a migration writes
// for a host left unset (UDS150, UDS170), so revert gives back the file
// as it was. It reports whether it removed the variable.
func (pl *reverter) removeSetDefault(ent compose.EnvVar, db *analyze.DB) bool {
	host, ok := analyze.Fallback(pl.p, pl.scopes, ent)
	if !ok || !slices.Contains(pl.p.Resolve(ent.Service, host).Services, db.Name) {
		return false
	}
	for _, d := range pl.p.ServiceDefs(ent.Service) {
		if d.Src == ent.Src && pl.ed.RemoveServiceEnv(d, ent) {
			pl.rep.Change(finding.Change{Kind: "value", Pos: ent.Pos, Service: ent.Service, Key: ent.Key,
				Dialect: dialect.HostVar(ent.Key).Name, Before: ent.Raw, After: "",
				Reason: fmt.Sprintf("removed: without it %s falls back to %s, which reaches %s over TCP", ent.Service, host, db.Name)})
			return true
		}
	}
	return false
}

// revertSettings writes back to TCP the socket values service reads from
// configuration files and documents that use the socket in mount m, where
// the migration wrote them: in the file's own syntax (Render), with $ as
// $$ inside a compose value. It reports whether the mount is now unused by
// them: a value it cannot edit exactly keeps it, with UDS111.
func (pl *reverter) revertSettings(service string, m compose.Mount, db *analyze.DB) bool {
	unused := true
	for _, s := range pl.settings[service] {
		sp, out, err := settingToTCP(s, db)
		if sp == "" {
			pl.rep.Add("UDS111", s.Pos, service, s.Key,
				fmt.Sprintf("%s reads a socket value from %s:%d (%s), and revert cannot tell which socket it uses: the mount of %s stays; point it at %s:%d by hand, then remove the mount", service, s.Pos.File, s.Pos.Line, s.Key, m.Source, db.Name, db.Port))
			unused = false
			continue
		}
		if sp = path.Clean(sp); sp != m.Target && !strings.HasPrefix(sp, m.Target+"/") {
			continue // another mount's socket
		}
		if s.In == nil || err != nil {
			why := "written where revert cannot edit it exactly (a folded scalar, a ${...} reference)"
			if err != nil {
				why = "which revert cannot write back as written (" + dialect.RedactErr(err) + ")"
			}
			pl.rep.Add("UDS111", s.Pos, service, s.Key,
				fmt.Sprintf("%s reads the socket from %s:%d (%s), %s: its socket mount stays; point that value back at %s:%d by hand, then remove the mount", service, s.Pos.File, s.Pos.Line, s.Key, why, db.Name, db.Port))
			unused = false
			continue
		}
		cv := s.In
		done := cv.Path + ":" + strconv.Itoa(cv.Value.Start)
		if pl.settingDone[done] {
			continue
		}
		pl.settingDone[done] = true
		reads := fmt.Sprintf("a configuration file %s reads", service)
		if cv.Src != nil {
			pl.ed.YAML(cv.Src).Replace(cv.Value.Start, cv.Value.End, strings.ReplaceAll(cv.Value.Render(out), "$", "$$"))
			reads = fmt.Sprintf("%s of the configuration document in %s/%s", cv.DocKey, service, s.Key)
		} else {
			pl.ed.EditFile(cv.Path, cv.Data, cv.Value.Start, cv.Value.End, cv.Value.Render(out))
		}
		pl.rep.Change(finding.Change{Kind: "value", Pos: s.Pos, Service: service, Key: s.Key, Dialect: s.Dialect,
			Before: dialect.Redact(s.Dialect, s.Value), After: dialect.Redact(s.Dialect, out), Reason: "reach " + db.Name + " over TCP (" + reads + ")"})
		pl.warnSSLDisable(service, s.Key, s.Pos, out, db)
	}
	return unused
}

// settingToTCP returns the socket path a socket setting names ("" when
// revert does not know its form) and its TCP form reaching db.
func settingToTCP(s analyze.SocketSetting, db *analyze.DB) (sp, out string, err error) {
	if s.Host {
		dir, tcp := revertHost(s.Value, db.Name)
		return dir, tcp, nil
	}
	sp = dialect.SocketPathOf(s.Value, s.Dialect)
	if sp == "" {
		return "", "", nil
	}
	out, err = dialect.FromSocket(s.Dialect, s.Value, db.Name, socketPort(s.Value, s.Dialect, db.Port))
	return sp, out, err
}

// socketPort is the port a socket-form value of dialect name connects
// to, which its TCP form keeps: the one its socket file names
// (.s.PGSQL.6432), else the one it writes (port=6432), else the server's
// (serverPort). A pooler named with --db listens on a port the compose
// file may not show (its 6432), and the migration kept the client's.
func socketPort(val, name string, serverPort int) int {
	if sp := dialect.SocketPathOf(val, name); sp != "" {
		if n, ok := strings.CutPrefix(path.Base(sp), ".s.PGSQL."); ok {
			if p, ok := pgserver.ParsePort(n); ok {
				return p
			}
		}
	}
	if p := dialect.URLPort(val, name); p > 0 {
		return p
	}
	return serverPort
}

// warnSSLDisable says (UDS174) that a value back on TCP keeps the socket
// form's sslmode=disable, which may not be what it had.
func (pl *reverter) warnSSLDisable(service, key string, at finding.Pos, out string, db *analyze.DB) {
	if sslDisableRE.MatchString(out) {
		pl.rep.Add("UDS174", at, service, key,
			fmt.Sprintf("%s/%s goes back to TCP with sslmode=disable, the socket form's sslmode: the migration writes disable for whatever the value had (require, verify-full: UDS104 said which), and revert cannot know it, so the connection to %s may now be unencrypted where it was encrypted before; set the sslmode it had by hand, or leave disable if that is what it had", service, key, db.Name))
	}
}

// sslDisableRE finds sslmode=disable in a URI, conninfo or JDBC URL.
var sslDisableRE = regexp.MustCompile(`(?i)(^|[?&;\s])sslmode=disable($|[&;\s])`)

// revertHost splits a host variable's socket value (DIR, or DIR:port as
// Gitea writes it) into the directory and the TCP value that replaces it.
func revertHost(val, server string) (dir, tcp string) {
	if h, p, err := net.SplitHostPort(val); err == nil && strings.HasPrefix(h, "/") {
		return h, net.JoinHostPort(server, p)
	}
	return val, server
}
