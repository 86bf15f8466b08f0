package rewrite

import (
	"context"
	"fmt"
	"net"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// Revert is the inverse migration, for moving to Kubernetes or to separate
// hosts: every client value that reaches a database through its socket
// volume goes back to TCP (host = the database service, port = its server
// port), the socket mounts are removed from clients and database, and the
// named volume is removed when nothing else mounts it. SSL settings that the
// migration removed are not restored (the migration said so when it removed
// them).
func Revert(ctx context.Context, inputs []Input, opts Options) (res *Result, err error) {
	defer func() { err = scrubErr(err, inputSecrets(inputs)) }()
	p, err := load(ctx, inputs, opts)
	if err != nil {
		return nil, err
	}
	pl := newPlanner(p, opts)
	a, err := analyze(p, opts)
	if err != nil {
		return nil, err
	}
	dbs := a.dbs
	pl.dbs = dbs
	pl.revert.dropTop = map[*Source][]string{}
	// Configuration files are not reverted: note which clients read a
	// socket value from one, so their mount stays.
	pl.collectConfigEdges(dbs)
	pl.railsEdges(dbs)
	for _, db := range dbs {
		pl.revertDB(db)
	}
	for _, src := range p.sources {
		pl.removeTopVolumes(src, pl.revert.dropTop[src])
	}
	if err := pl.flushFiles(); err != nil {
		return nil, err
	}
	res, err = pl.result()
	if err != nil {
		return nil, err
	}
	if !res.Changed() {
		res.NothingReason = "no service reaches a PostgreSQL service through a socket volume"
	}
	if res.Changed() {
		var again []Input
		for _, f := range res.Files[:len(inputs)] {
			again = append(again, Input{Path: f.Path, Data: f.After})
		}
		opts2 := opts
		opts2.ReadFile = overlay(res.Files[len(inputs):], opts.ReadFile)
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

func (pl *planner) revertDB(db *dbService) {
	ms := pl.p.serviceMounts(db.name)
	var sock *mountRef
	for i, m := range ms {
		if db.listensIn(m.target) && m.source != "" && !m.bind {
			sock = &ms[i]
		}
	}
	if sock == nil {
		return
	}
	users := 0
	for _, name := range pl.p.serviceOrder() {
		if name == db.name {
			continue
		}
		for _, m := range pl.p.serviceMounts(name) {
			if m.source != sock.source {
				continue
			}
			if at := pl.configs.cfgSocket[name]; at != "" {
				file, line := splitAt(at)
				pl.findings.add("UDS111", Pos{File: file, Line: line, Col: 1}, name, file,
					fmt.Sprintf("%s reads the socket from %s, a configuration file revert does not edit: its socket mount stays; point that value back at %s:%d by hand, then remove the mount", name, at, db.name, db.port))
				users++
				continue
			}
			if pl.revertClient(name, m, db) {
				pl.removeMount(name, m)
			} else {
				users++
			}
		}
	}
	if users > 0 || !pl.plainVolume(sock.source) {
		// Still used, or a volume the user configured (external, name,
		// driver): it was there before the migration, so it stays.
		return
	}
	pl.removeMount(db.name, *sock)
	// Every file's declaration: a migration of several files declares the
	// volume in each file that mounts it without the base.
	for _, src := range pl.p.sources {
		pl.revert.dropTop[src] = append(pl.revert.dropTop[src], sock.source)
	}
}

// revertClient rewrites the values of one client that use the socket in
// mount m; it reports whether the mount is now unused by that client.
func (pl *planner) revertClient(service string, m mountRef, db *dbService) bool {
	unused := true
	for _, ent := range pl.p.serviceEnv(service) {
		raw, val := ent.raw, ent.value
		if dir, tcp := revertHost(val, db.name); (ent.key == "PGHOST" || pl.dirHostVar(service, ent.key) || appHostRE.MatchString(ent.key)) && path.Clean(dir) == m.target {
			mk, _ := interp.Mask(raw)
			if pl.setValue(ent, mk, tcp) {
				pl.changes = append(pl.changes, Change{Kind: "value", Pos: ent.pos, Service: service, Key: ent.key,
					Dialect: hostDialect(ent.key), Before: raw, After: tcp, Reason: "reach " + db.name + " over TCP"})
			}
			continue
		}
		_, dialect, socket := classify(val)
		if !socket {
			continue
		}
		// A socket value whose path revert cannot read (a JDBC factory
		// that takes the path from elsewhere): it may use this mount, so
		// the mount stays, loudly.
		spRaw := socketPathOf(val, dialect)
		if spRaw == "" {
			pl.findings.add("UDS111", ent.pos, service, ent.key,
				fmt.Sprintf("%s/%s is in socket form, and revert cannot tell which socket it uses: the mount of %s stays; point it at %s:%d by hand, then remove the mount", service, ent.key, m.source, db.name, db.port))
			unused = false
			continue
		}
		// Inside the mount, not a sibling that shares its prefix
		// (/var/run/postgresql-pgbouncer is not in /var/run/postgresql).
		if sp := path.Clean(spRaw); sp != m.target && !strings.HasPrefix(sp, m.target+"/") {
			continue
		}
		// A ${VAR:-default} whose default compose uses had its default
		// rewritten (UDS143): revert the default, inside the reference.
		mk, enclose, err := pl.maskValue(ent)
		if err != nil {
			unused = false
			continue
		}
		out, err := fromSocket(dialect, mk.Value, db.name, db.port)
		if err != nil {
			pl.findings.add("UDS111", ent.pos, service, ent.key, fmt.Sprintf("%s/%s cannot be reverted as written (%s): the mount of %s stays; point it at %s:%d by hand, then remove the mount", service, ent.key, redactErr(err), m.source, db.name, db.port))
			unused = false
			continue
		}
		if enclose != nil {
			mk, out = enclose(mk, out)
		}
		newRaw := mk.Unmask(out)
		if pl.setValue(ent, mk, out) {
			pl.changes = append(pl.changes, Change{Kind: "value", Pos: ent.pos, Service: service, Key: ent.key,
				Dialect: dialect, Before: pl.redactValue(dialect, raw), After: pl.redactValue(dialect, newRaw), Reason: "reach " + db.name + " over TCP"})
		} else {
			unused = false
		}
	}
	return unused
}

// removeMount deletes a service's mount m from every file that writes it
// (the same volume at the same target): a migration of several files may
// have written it in more than one.
func (pl *planner) removeMount(service string, m mountRef) {
	for _, d := range pl.p.serviceDefs(service) {
		_, ms := pl.p.mounts(d.src, d.node)
		for _, o := range ms {
			if o.source == m.source && o.target == m.target {
				pl.removeItem(o.src, d.node, o)
			}
		}
	}
}

// removeItem deletes a volumes: entry; when it was the only one, the
// volumes: key goes too.
func (pl *planner) removeItem(src *Source, svc *yaml.Node, m mountRef) {
	kn, seq := yamledit.OwnKey(svc, "volumes")
	seq = yamledit.Deref(seq)
	if kn != nil && seq != nil && seq.Kind == yaml.SequenceNode && seq.Style&yaml.FlowStyle != 0 && m.src == src && len(seq.Content) == 1 && seq.Content[0] == m.node {
		// [a] → []: the list was there before the migration filled it.
		if sp, err := src.ScalarSpan(m.node, true); err == nil {
			pl.ed(src).Replace(sp.Start, sp.End, "")
			return
		}
	}
	if kn != nil && seq != nil && seq.Kind == yaml.SequenceNode && seq.Style&yaml.FlowStyle != 0 && m.src == src && len(seq.Content) > 1 {
		// [a, b]: remove ", b" (or "a, ") so the list keeps its own spacing.
		for i, it := range seq.Content {
			if it != m.node {
				continue
			}
			sp, err := src.ScalarSpan(it, true)
			if err != nil {
				break
			}
			if i > 0 {
				prev, err := src.ScalarSpan(seq.Content[i-1], true)
				if err == nil {
					pl.ed(src).Replace(prev.End, sp.End, "")
					return
				}
			} else if next, err := src.ScalarSpan(seq.Content[1], true); err == nil {
				pl.ed(src).Replace(sp.Start, next.Start, "")
				return
			}
		}
	}
	if kn == nil || seq == nil || seq.Kind != yaml.SequenceNode || seq.Style&yaml.FlowStyle != 0 || m.src != src {
		pl.findings.add("UDS111", yamledit.NodePos(src, m.node), pl.serviceOf(svc), "volumes", pl.serviceOf(svc)+": remove the volume "+m.source+" from this service by hand")
		return
	}
	if len(seq.Content) == 1 {
		pl.deleteLines(src, kn.Line, src.BlockEnd(kn.Line, kn.Column, true))
		return
	}
	pl.deleteLines(src, m.node.Line, src.BlockEnd(m.node.Line, seq.Column, false))
	// Every item removed one by one: the key goes too (an empty
	// "volumes:" is null, which compose's schema refuses).
	if pl.revert.removedItems == nil {
		pl.revert.removedItems = map[*yaml.Node]int{}
	}
	if pl.revert.removedItems[seq]++; pl.revert.removedItems[seq] == len(seq.Content) && kn.Line < seq.Content[0].Line {
		pl.deleteLines(src, kn.Line, kn.Line)
	}
}

// removeTopVolumes deletes top-level volume declarations, and the volumes:
// section when nothing is left in it (with the blank line before it, when it
// ends the file).
func (pl *planner) removeTopVolumes(src *Source, names []string) {
	kn, vols := yamledit.OwnKey(src.Root, "volumes")
	if len(names) == 0 || kn == nil || vols.Kind != yaml.MappingNode || vols.Style&yaml.FlowStyle != 0 {
		return
	}
	var keys []*yaml.Node
	for _, n := range names {
		if vk, _ := yamledit.OwnKey(vols, n); vk != nil {
			keys = append(keys, vk)
		}
	}
	if len(keys) == len(vols.Content)/2 {
		first, last := kn.Line, src.BlockEnd(kn.Line, kn.Column, true)
		if last >= src.LastContentLine() && first > 1 && strings.TrimSpace(src.Line(first-1)) == "" {
			first--
		}
		pl.deleteLines(src, first, last)
		return
	}
	for _, vk := range keys {
		pl.deleteLines(src, vk.Line, src.BlockEnd(vk.Line, vk.Column, true))
	}
}

// deleteLines removes lines first..last of src whole.
func (pl *planner) deleteLines(src *Source, first, last int) {
	pl.ed(src).DeleteLines(first, last)
}

// plainVolume reports whether a top-level volume is declared without
// options (name: or name: {}), the way the migration declares it.
func (pl *planner) plainVolume(name string) bool {
	for _, src := range pl.p.sources {
		_, vols := yamledit.OwnKey(src.Root, "volumes")
		if _, v := yamledit.OwnKey(yamledit.Deref(vols), name); v != nil {
			v = yamledit.Deref(v)
			return (v.Kind == yaml.ScalarNode && v.Tag == "!!null") || (v.Kind == yaml.MappingNode && len(v.Content) == 0)
		}
	}
	return true
}

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

// serviceOf names the service whose mapping is svc.
func (pl *planner) serviceOf(svc *yaml.Node) string {
	for _, name := range pl.p.serviceOrder() {
		if _, n := pl.p.serviceNode(name); n == svc {
			return name
		}
	}
	return ""
}

// splitAt splits "file:line".
func splitAt(at string) (string, int) {
	i := strings.LastIndexByte(at, ':')
	n, _ := atoiPort(at[i+1:])
	return at[:i], n
}
