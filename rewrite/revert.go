package rewrite

import (
	"context"
	"fmt"
	"net"
	"path"
	"regexp"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/proxy"
)

// Revert is the inverse migration, for moving to Kubernetes or to separate
// hosts: every client value that reaches a database through its socket
// volume goes back to TCP (host = the database service, port = its server
// port), the socket mounts are removed from clients and database, and the
// named volume is removed when nothing else mounts it. SSL settings that the
// migration removed are not restored (the migration said so when it removed
// them).
func Revert(ctx context.Context, inputs []Input, opts Options) (res *Result, err error) {
	defer func() { err = ScrubErr(err, compose.InputSecrets(inputs)) }()
	p, err := load(ctx, inputs, opts)
	if err != nil {
		return nil, err
	}
	a, err := analyze(p, opts)
	if err != nil {
		return nil, err
	}
	dbs := a.dbs
	ps := newPass(p, opts, a)
	dropTop := map[*Source][]string{} // top-level volumes to remove, per file
	// Configuration files are not reverted: note which clients read a
	// socket value from one, so their mount stays.
	cl := newCollector(p, opts, a)
	(fileValues{cl}).configEdges()
	(fileValues{cl}).rails()
	(envDocs{cl}).markSockets()
	addNotes(ps, cl.notes)
	rv := &reverter{pass: ps, socketReaders: cl.cfgSocket, scopes: cl.scopes}
	for _, db := range dbs {
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
		ps.ed.RemoveTopVolumes(src, dropTop[src])
	}
	if err := ps.ed.Flush(); err != nil {
		return nil, err
	}
	res, err = ps.result(nil)
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
	if res.Changed() {
		var again []Input
		for _, f := range res.Files[:len(inputs)] {
			again = append(again, Input{Path: f.Path, Data: f.After})
		}
		opts2 := opts
		opts2.ReadFile = compose.Overlay(res.Files[len(inputs):], opts.ReadFile)
		out, err := load(ctx, again, opts2)
		if err != nil {
			return nil, fmt.Errorf("internal error: the reverted output does not load: %w", err)
		}
		if bad := newErrors(validateLoaded(p, opts), validateLoaded(out, opts2)); len(bad) > 0 {
			return nil, &ValidationError{Findings: bad, Revert: true}
		}
	}
	return res, nil
}

// reverter brings the clients of a project's databases back to TCP, over
// one pass; socketReaders are the clients that read a socket value from a
// configuration file, which revert does not edit (service → "file:line").
type reverter struct {
	*pass
	socketReaders map[string]string
	scopes        *scopes // the files that reach each service, for evidence
}

// hostVar reports whether a client's variable is a host variable that a
// migration sets to a socket directory: PGHOST, a name that says host,
// --host-var, the catalogue, or evidence in the project that hands it to
// a driver's host (PGHOST_X read by node-postgres), as the migration
// judged it (knownHostVar).
func (pl *reverter) hostVar(service, key string) bool {
	if isHostVar(key) || pl.p.dirHostVar(pl.opts.HostVars, service, key) {
		return true
	}
	v, ok := evidence.Find(pl.scopes.of(service), key)
	return ok && v.Directory
}

// revertDB brings db's clients back to TCP and removes the socket mounts
// nothing uses any more; when the socket volume goes too, it returns its
// name, for RemoveTopVolumes.
func (pl *reverter) revertDB(db *dbService) string {
	ms := pl.p.ServiceMounts(db.name)
	var sock *compose.Mount
	for i, m := range ms {
		if db.listensIn(db.configDir, m.Target) && m.Source != "" && !m.Bind {
			sock = &ms[i]
		}
	}
	if sock == nil {
		return ""
	}
	users := 0
	for _, name := range pl.p.ServiceOrder() {
		if name == db.name {
			continue
		}
		for _, m := range pl.p.ServiceMounts(name) {
			if m.Source != sock.Source {
				continue
			}
			if at := pl.socketReaders[name]; at != "" {
				file, line := splitAt(at)
				pl.rep.Add("UDS111", Pos{File: file, Line: line, Col: 1}, name, file,
					fmt.Sprintf("%s reads the socket from %s, a configuration file revert does not edit: its socket mount stays; point that value back at %s:%d by hand, then remove the mount", name, at, db.name, db.port))
				users++
				continue
			}
			if pl.revertClient(name, m, db) {
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
	pl.ed.RemoveMount(db.name, *sock)
	return sock.Source
}

// revertClient rewrites the values of one client that use the socket in
// mount m; it reports whether the mount is now unused by that client.
func (pl *reverter) revertClient(service string, m compose.Mount, db *dbService) bool {
	unused := true
	for _, ent := range pl.p.ServiceEnv(service) {
		raw, val := ent.Raw, ent.Value
		if dir, tcp := revertHost(val, db.name); path.Clean(dir) == m.Target && pl.hostVar(service, ent.Key) {
			mk, _ := interp.Mask(raw)
			if pl.ed.SetValue(ent, mk, tcp) {
				pl.rep.Change(Change{Kind: "value", Pos: ent.Pos, Service: service, Key: ent.Key,
					Dialect: dialect.HostVar(ent.Key).Name, Before: raw, After: tcp, Reason: "reach " + db.name + " over TCP"})
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
				fmt.Sprintf("%s/%s is in socket form, and revert cannot tell which socket it uses: the mount of %s stays; point it at %s:%d by hand, then remove the mount", service, ent.Key, m.Source, db.name, db.port))
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
		mk, enclose, err := maskValue(pl.p, ent)
		if err != nil {
			unused = false
			continue
		}
		out, err := dialect.FromSocket(dname, mk.Value, db.name, db.port)
		if err != nil {
			pl.rep.Add("UDS111", ent.Pos, service, ent.Key, fmt.Sprintf("%s/%s cannot be reverted as written (%s): the mount of %s stays; point it at %s:%d by hand, then remove the mount", service, ent.Key, redactErr(err), m.Source, db.name, db.port))
			unused = false
			continue
		}
		if enclose != nil {
			mk, out = enclose(mk, out)
		}
		newRaw := mk.Unmask(out)
		if pl.ed.SetValue(ent, mk, out) {
			pl.rep.Change(Change{Kind: "value", Pos: ent.Pos, Service: service, Key: ent.Key,
				Dialect: dname, Before: redactValue(pl.p, dname, raw), After: redactValue(pl.p, dname, newRaw), Reason: "reach " + db.name + " over TCP"})
			if sslDisableRE.MatchString(out) {
				pl.rep.Add("UDS174", ent.Pos, service, ent.Key,
					fmt.Sprintf("%s/%s goes back to TCP with sslmode=disable, the socket form's sslmode: the migration writes disable for whatever the value had (require, verify-full: UDS104 said which), and revert cannot know it, so the connection to %s is now unencrypted; set the sslmode it had by hand", service, ent.Key, db.name))
			}
		} else {
			unused = false
		}
	}
	return unused
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

// newErrors returns the validate errors of after that before did not have
// (same code, service and key): what the revert broke, such as a client
// left pointing at a socket directory it no longer mounts (UDS205).
func newErrors(before, after []Finding) []Finding {
	had := map[string]bool{}
	for _, f := range before {
		had[f.Code+"\x00"+f.Service+"\x00"+f.Key] = true
	}
	var out []Finding
	for _, f := range after {
		if f.Severity == SevError && !had[f.Code+"\x00"+f.Service+"\x00"+f.Key] {
			out = append(out, f)
		}
	}
	return out
}

// splitAt splits "file:line".
func splitAt(at string) (string, int) {
	i := strings.LastIndexByte(at, ':')
	n, _ := atoiPort(at[i+1:])
	return at[:i], n
}
