package rewrite

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/jdbc"
	"github.com/uds-migrate/uds-migrate/libpq"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// rewriteEdge rewrites one value to reach the database's socket through the
// client's mount directory mp; mount adds the client's socket mount, and
// is called once the value is written (a value left as it was gets none).
// Interpolation references in the value are kept as written; literal $ is
// written $$.
func (mg *migration) rewriteEdge(e *analyze.Edge, mp string, mount func()) {
	if e.InFile != nil {
		mount()
		mg.rewriteConfigEdge(e, mp)
		return
	}
	if e.Unset != nil {
		mount()
		mg.setUnsetVar(e, mp)
		return
	}
	if e.Override {
		mount()
		mg.overrideVar(e, mp)
		return
	}
	if e.KeepValue {
		// the image reads the socket directory from the variables the
		// edge adds; the value itself stays
		mount()
		v := e.Var
		for _, a := range e.Adds {
			if mg.ed.AddEnvAfter(v, a.Key, a.Value, a.Reason) {
				mg.rep.Change(Change{Kind: "value", Pos: v.Pos, Service: v.Service, Key: a.Key, Dialect: e.Dialect, After: a.Value, Reason: a.Reason, Basis: e.Basis})
			}
		}
		return
	}
	v := e.Var
	m, enclose, err := analyze.MaskValue(mg.p, v)
	if err != nil {
		mg.rep.Add("UDS111", v.Pos, v.Service, v.Key, err.Error())
		return
	}
	d, _ := dialect.Lookup(e.Dialect)
	out, notes, err := dialect.ToSocket(e.Dialect, m.Value, mp, e.Port)
	if err == nil {
		out, err = inForm(out, e.Form)
	}
	sysprop := ""
	if err == nil && d.Factory != nil {
		style := mg.opts.JDBCFactory
		file := mp + "/.s.PGSQL." + strconv.Itoa(e.Port)
		if style == JDBCFactorySysprop {
			// One JVM property per process: a second socket file in the
			// same service keeps the $FactoryArg form.
			if prev, ok := mg.sysprop[v.Service]; ok && prev != file {
				mg.rep.Add("UDS130", v.Pos, v.Service, v.Key,
					fmt.Sprintf("%s already reaches %s through the JVM property; %s keeps the $FactoryArg form for %s", v.Service, prev, v.Key, file))
				style = JDBCFactoryArg
			} else {
				sysprop = file
			}
		}
		out, err = d.Factory(out, style)
	}
	if err != nil {
		code := "UDS111"
		if errors.Is(err, jdbc.ErrMultiHost) || errors.Is(err, libpq.ErrMultiHost) {
			code = "UDS110"
		}
		msg := fmt.Sprintf("%s/%s cannot be rewritten as written (%v); set it to the socket form by hand", v.Service, v.Key, dialect.RedactErr(err))
		want, _, err2 := dialect.ToSocket(e.Dialect, v.Value, mp, e.Port)
		if err2 == nil {
			// the form its reader takes (Prisma: localhost), not the default
			want, err2 = inForm(want, e.Form)
		}
		if err2 == nil && code == "UDS111" {
			// The text is made of references set outside the project files
			// (the shell environment): say what the variable must hold. The
			// project's half is the mount, which the service gets.
			msg = fmt.Sprintf("%s/%s is %s, set outside the project files; set it to %s", v.Service, v.Key, dialect.Redact(e.Dialect, v.Raw), dialect.Redact(e.Dialect, want))
			mount()
		}
		mg.rep.Add(code, v.Pos, v.Service, v.Key, msg)
		return
	}
	if mg.top.KeepPGSSLMode[v.Service] && e.InFile == nil {
		if d.SSLDisable != nil {
			out, _ = d.SSLDisable(out)
		} else if d.PGSSLMode {
			// PGHOST: no place for an sslmode of its own.
			mg.out.pghostOnSocket[v.Service] = true
		}
	}
	if enclose != nil {
		m, out = enclose(m, out)
	}
	newRaw := m.Unmask(out)
	if newRaw == v.Raw {
		mount()
		return
	}
	if !mg.ed.SetValue(v, m, out) {
		return
	}
	mount()
	mg.out.migratedPos[v.Pos.String()] = true
	mg.warnDroppedRefs(v, m, out, e.DB.Name)
	mg.warnDefault(v)
	if d.PGSSLMode {
		mg.out.sslClients[v.Service] = true
	}
	if sysprop != "" && mg.sysprop[v.Service] == "" {
		mg.sysprop[v.Service] = sysprop
		mg.setJavaOpt(v, "-D"+d.Property+"="+sysprop)
	}
	for _, a := range e.Adds {
		mg.addEnvAfter(v, a.Key, a.Value, a.Reason)
	}
	for _, n := range notes {
		mg.rep.Add(n.Code, v.Pos, v.Service, v.Key, v.Service+"/"+v.Key+": "+n.Message)
	}
	if d.HostInQuery && mentionsRails(mg.p.Model.Services[v.Service]) && !railsEvidence(e.Basis) {
		mg.rep.Add("UDS123", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s: %s looks like a Rails app: Rails 7.0 and later read ?host= from %s; before 7.0 it is ignored and the app stays on TCP, so write the host percent-encoded instead (postgres://USER:PASSWORD@%s/DB)", v.Service, v.Key, v.Service, v.Key, strings.ReplaceAll(mp, "/", "%2F")))
	}
	if d.Needs != nil && !e.LibraryShipped && !mg.javaWarn[v.Service] {
		mg.javaWarn[v.Service] = true
		mg.rep.Add("UDS101", v.Pos, v.Service, v.Key, d.Needs(v.Service, ""))
	}
	mg.rep.Change(Change{Kind: "value", Pos: v.Pos,
		Service: v.Service, Key: v.Key, Dialect: e.Dialect, Before: analyze.RedactValue(mg.p, e.Dialect, v.Raw), After: analyze.RedactValue(mg.p, e.Dialect, newRaw),
		Reason: edgeReason(e, mp), Basis: e.Basis})
	mg.noteEvidence(e, mp)
}

// edgeReason says why a value changed, and on whose knowledge when a
// host variable was migrated (plan's text form shows it).
func edgeReason(e *analyze.Edge, mp string) string {
	r := fmt.Sprintf("reach %s through its socket in %s", e.DB.Name, mp)
	if len(e.HostGiven) > 0 {
		r = fmt.Sprintf("reach %s through its socket in %s for the connections that name no host (psql, pg_dump without -h): libpq reads PGHOST only then, and %s name%s a host and stay%s on TCP", e.DB.Name, mp,
			strings.Join(e.HostGiven, ", "), map[bool]string{true: "s", false: ""}[len(e.HostGiven) == 1], map[bool]string{true: "s", false: ""}[len(e.HostGiven) == 1])
	}
	if e.Basis != nil && e.Basis.Kind != BasisEvidence { // evidence: UDS170 and the plan's evidence say it
		r += " (" + e.Basis.Citation() + ")"
	}
	return r
}

// railsEvidence reports whether the value's form was chosen on evidence
// that Rails reads it: consumer.Decide lets that happen only when the
// project's manifests show Rails 7.0 or later, which reads ?host=.
func railsEvidence(b *finding.Basis) bool {
	return b != nil && b.Kind == finding.BasisEvidence && slices.Contains(strings.Split(b.Name, "+"), "rails")
}

// mentionsRails guesses a Rails app from its image or command.
func mentionsRails(svc types.ServiceConfig) bool {
	text := strings.ToLower(svc.Image + " " + strings.Join(svc.Command, " ") + " " + strings.Join(svc.Entrypoint, " "))
	if strings.Contains(text, "rails") {
		return true
	}
	for _, k := range []string{"RAILS_ENV", "RAILS_MASTER_KEY", "RAILS_LOG_TO_STDOUT"} {
		if _, ok := svc.Environment[k]; ok {
			return true
		}
	}
	return false
}

// setJavaOpt adds a JVM option to the service's JAVA_TOOL_OPTIONS (the JVM
// reads it at start), creating the variable next to v when absent.
func (mg *migration) setJavaOpt(v compose.EnvVar, opt string) {
	for _, o := range mg.p.ServiceEnv(v.Service) {
		if o.Key != "JAVA_TOOL_OPTIONS" {
			continue
		}
		if strings.Contains(o.Value, opt) {
			return
		}
		m, err := interp.Mask(o.Raw)
		if err == nil && mg.ed.SetValue(o, m, strings.TrimSpace(m.Value+" "+opt)) {
			return
		}
		mg.rep.Add("UDS111", o.Pos, v.Service, "JAVA_TOOL_OPTIONS", "add "+opt+" to JAVA_TOOL_OPTIONS by hand")
		return
	}
	mg.addEnvAfter(v, "JAVA_TOOL_OPTIONS", opt, "junixsocket's $SystemProperty factory reads the socket path from this JVM property")
}

// warnDroppedRefs warns (UDS136) about each ${VAR} of the value that the
// socket form no longer holds (it stood for the host or the port): a
// deployment that sets VAR elsewhere (--env-file prod.env, the shell) no
// longer changes where the client connects.
func (mg *migration) warnDroppedRefs(v compose.EnvVar, m interp.Masked, out, db string) {
	for _, r := range m.Value {
		ref, ok := m.Ref(r)
		if !ok || ref == "$" || strings.ContainsRune(out, r) || !hostOrPortAt(m.Value, r) {
			continue
		}
		name := ref
		if n := compose.RefName(ref); n != "" {
			name = n
		}
		mg.rep.Add("UDS164", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s: %s stood for the host or port and is gone from the socket form, which always reaches %s's socket: setting %s elsewhere (--env-file prod.env, the shell) no longer changes where %s connects", v.Service, v.Key, ref, db, name, v.Service))
	}
}

// hostOrPortAt reports whether placeholder r of masked value v stands
// where a host or port is written: after "//", "@", "," or ":" in a URL, or
// as the value of host/port (Host/Server/Port in Npgsql) in a keyword
// string.
func hostOrPortAt(v string, r rune) bool {
	i := strings.IndexRune(v, r)
	if i < 0 {
		return false
	}
	before := strings.ToLower(v[:i])
	if q := strings.IndexByte(before, '?'); q >= 0 && strings.Contains(before[:q], "://") {
		return false // a URL query parameter
	}
	for _, suffix := range []string{"//", "@", ":", ",", "host=", "port=", "server=", "hostaddr="} {
		if strings.HasSuffix(before, suffix) {
			return true
		}
	}
	return false
}

// rewriteConfigEdge writes the socket form of a configuration file value
// in place. A file mounted on several services is edited once.
func (mg *migration) rewriteConfigEdge(e *analyze.Edge, mp string) {
	v, cv := e.Var, e.InFile
	d, _ := dialect.Lookup(e.Dialect)
	if d.Needs != nil && !mg.javaWarn[v.Service] {
		mg.javaWarn[v.Service] = true
		inFile := v.Key + " in " + v.Pos.File
		if cv.Src != nil {
			inFile = "" // a compose value: written $$FactoryArg, as in the environment
		}
		mg.rep.Add("UDS101", v.Pos, v.Service, v.Key, d.Needs(v.Service, inFile))
	}
	key := cv.Path + ":" + strconv.Itoa(cv.Value.Start)
	if mg.cfgDone[key] {
		return
	}
	mg.cfgDone[key] = true
	out, notes, err := dialect.ToSocket(e.Dialect, v.Value, mp, e.DB.Port)
	if err == nil && d.Factory != nil {
		style := mg.opts.JDBCFactory
		if style == JDBCFactorySysprop {
			style = JDBCFactoryArg // the JVM property lives in the compose file, not here
		}
		out, err = d.Factory(out, style)
	}
	if err == nil {
		out, err = inForm(out, e.Form)
	}
	if err != nil {
		mg.rep.Add("UDS111", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s in %s cannot be rewritten as written (%v); set it to the socket form by hand", v.Key, v.Pos.File, dialect.RedactErr(err)))
		return
	}
	reads := fmt.Sprintf("a configuration file %s reads; not interpolated by compose", v.Service)
	if cv.Src != nil {
		// Inside a compose value: compose interpolates, so a $ is $$.
		mg.ed.YAML(cv.Src).Replace(cv.Value.Start, cv.Value.End, strings.ReplaceAll(cv.Value.Render(out), "$", "$$"))
		reads = fmt.Sprintf("%s of the configuration document in %s/%s", cv.DocKey, v.Service, v.Key)
	} else {
		mg.ed.EditFile(cv.Path, cv.Data, cv.Value.Start, cv.Value.End, cv.Value.Render(out))
	}
	mg.noteEvidence(e, mp)
	mg.noteRailsDefault(e, mp)
	// No UDS123 here: a url: in config/database.yml is Rails' own, and
	// consumer.Refine lets it change only when the manifests show Rails
	// 7.0 or later (--consumer names environment variables, never a
	// database.yml key, so no other basis reaches this value).
	for _, n := range notes {
		mg.rep.Add(n.Code, v.Pos, v.Service, v.Key, v.Service+" "+v.Pos.File+" "+v.Key+": "+n.Message)
	}
	mg.rep.Change(Change{Kind: "value", Pos: v.Pos,
		Service: v.Service, Key: v.Key, Dialect: e.Dialect, Before: dialect.Redact(e.Dialect, v.Value), After: dialect.Redact(e.Dialect, out),
		Reason: fmt.Sprintf("reach %s through its socket in %s (%s)", e.DB.Name, mp, reads), Basis: e.Basis})
}

// overrideVar writes the socket form of e's env_file line into the
// service's own environment: (in the file that defines its image), where
// it takes precedence over the line, which stays for its other uses
// (analyze's UDS166).
func (mg *migration) overrideVar(e *analyze.Edge, mp string) {
	v := e.Var
	out, _, err := dialect.ToSocket(e.Dialect, v.Value, mp, e.Port)
	if err != nil {
		mg.rep.Add("UDS111", v.Pos, v.Service, v.Key, fmt.Sprintf("%s/%s: set it to the socket directory %s in %s's environment: by hand: %v", v.Service, v.Key, mp, v.Service, err))
		return
	}
	home := mg.p.ImageHome(v.Service)
	// The comment tells a reviewer why the entry is there, and revert
	// which entries to remove (compose.OverrideComment).
	if home.Src == nil {
		return
	}
	rel := v.EnvFile.Path
	if r, err := filepath.Rel(filepath.Dir(home.Src.Path), v.EnvFile.Path); err == nil {
		rel = r // as the compose file names it
	}
	if !mg.ed.AddServiceEnv(home, v.Service, v.Key, out+" "+compose.OverrideComment(rel)) {
		return
	}
	kn, _ := yamledit.OwnKey(compose.ServicesMapping(home.Src), v.Service)
	mg.rep.Change(Change{Kind: "value", Pos: yamledit.NodePos(home.Src, kn), Service: v.Service, Key: v.Key, Dialect: e.Dialect,
		Before: v.Value, After: out, Reason: edgeReason(e, mp), Basis: e.Basis})
}

// setUnsetVar writes an unset host variable into the service's
// environment: (in the file that defines its image) as the socket
// directory mp, on the evidence the edge carries.
func (mg *migration) setUnsetVar(e *analyze.Edge, mp string) {
	v, d, b := e.Var, e.Unset, e.Basis
	home := mg.p.ImageHome(v.Service)
	if home.Src == nil || !mg.ed.AddServiceEnv(home, v.Service, v.Key, mp) {
		return
	}
	kn, _ := yamledit.OwnKey(compose.ServicesMapping(home.Src), v.Service)
	at := yamledit.NodePos(home.Src, kn)
	mg.rep.Change(Change{Kind: "value", Pos: at, Service: v.Service, Key: v.Key, Dialect: e.Dialect,
		After: mp, Reason: edgeReason(e, mp), Basis: b})
	if b.Kind == BasisCatalogue {
		// The image's own default (catalog.Var.Default), no line of the
		// project's: the catalogue's sources say where it was read.
		host := d.Value
		if host != e.DB.Name {
			host += " (" + e.DB.Name + ")"
		}
		mg.rep.Add("UDS150", at, v.Service, v.Key,
			fmt.Sprintf("%s/%s was unset, so the image connected to its default host %s over TCP: set to the socket directory %s in %s's environment: %s (%s); the port (%d) names .s.PGSQL.%d",
				v.Service, v.Key, host, mp, v.Service, b.Detail, b.Citation(), e.DB.Port, e.DB.Port)).Basis = b
		return
	}
	if b.Kind == BasisUser {
		mg.rep.Add("UDS152", at, v.Service, v.Key,
			fmt.Sprintf("%s/%s was unset, so %s fell back to %s over TCP: set to the socket directory %s in %s's environment on the user's word: --host-var %s/%s vouches that the application hands it to a driver that takes a socket directory as host; the tool has no evidence of its own; the port (%d) names .s.PGSQL.%d",
				v.Service, v.Key, fmt.Sprintf("%s:%d", v.Pos.File, v.Pos.Line), d.Value, mp, v.Service, v.Service, v.Key, e.DB.Port, e.DB.Port)).Basis = b
		return
	}
	f := mg.rep.Add("UDS170", at, v.Service, v.Key,
		fmt.Sprintf("%s/%s was unset, so %s fell back to %s over TCP: set to the socket directory %s in %s's environment on evidence: %s:%d: %s; %s takes an absolute directory as the socket directory, and the port (%d) names .s.PGSQL.%d",
			v.Service, v.Key, fmt.Sprintf("%s:%d", v.Pos.File, v.Pos.Line), d.Value, mp, v.Service, b.At.File, b.At.Line, b.Detail, b.Name, e.DB.Port, e.DB.Port))
	f.Basis = b
}

// noteEvidence says, once the value is rewritten, which evidence the
// rewrite rests on (UDS155, UDS170), or which catalogue entry (UDS150).
func (mg *migration) noteEvidence(e *analyze.Edge, mp string) {
	d, _ := dialect.Lookup(e.Dialect)
	if b := e.Basis; b != nil && b.Kind == BasisCatalogue && e.LibraryShipped {
		// a JDBC URL whose image ships junixsocket: no UDS101 step, so
		// the entry that says so is the finding
		mg.rep.Add("UDS150", e.Var.Pos, e.Var.Service, e.Var.Key,
			fmt.Sprintf("%s/%s written in the junixsocket JDBC form, which the image takes as it is: %s (%s)", e.Var.Service, e.Var.Key, b.Detail, b.Citation())).Basis = b
		return
	}
	if b := e.Basis; b != nil && b.Kind == BasisCatalogue && d.ByReader {
		// a URI in the catalogue's form: said as for host variables, so
		// that every catalogue edit shows its source (trial 10 N4)
		mg.rep.Add("UDS150", e.Var.Pos, e.Var.Service, e.Var.Key,
			fmt.Sprintf("%s/%s written in the %s socket form: %s (%s)", e.Var.Service, e.Var.Key, e.Form, b.Detail, b.Citation())).Basis = b
		return
	}
	if e.Basis == nil || e.Basis.Kind != BasisEvidence || e.RailsVar != "" {
		return // noteRailsDefault says it for an edited ERB default
	}
	b := e.Basis
	through := ""
	if b.Via != "" {
		through = ", through " + b.Via
	}
	if d.ByReader {
		mg.rep.Add("UDS155", e.Var.Pos, e.Var.Service, e.Var.Key,
			fmt.Sprintf("%s/%s written in the %s socket form: %s%s", e.Var.Service, e.Var.Key, e.Form, b.Detail, through)).Basis = b
		return
	}
	who := e.Var.Service + "/" + e.Var.Key
	if e.InFile != nil && e.InFile.DocKey != "" {
		who += "'s " + e.InFile.DocKey // a setting inside a document
	}
	mg.rep.Add("UDS170", e.Var.Pos, e.Var.Service, e.Var.Key,
		fmt.Sprintf("%s set to the socket directory %s on evidence: %s:%d: %s%s; %s takes an absolute directory as the socket directory, and the port (%d) names .s.PGSQL.%d",
			who, mp, b.At.File, b.At.Line, b.Detail, through, b.Name, e.DB.Port, e.DB.Port))
}

// noteRailsDefault says what editing a shared ERB default does (UDS171).
func (mg *migration) noteRailsDefault(e *analyze.Edge, mp string) {
	if e.RailsVar == "" {
		return
	}
	v := e.Var
	mg.rep.Add("UDS171", v.Pos, v.Service, e.RailsVar,
		fmt.Sprintf("%s does not set %s, so its host is the ERB default in %s:%d (%q), which the pg gem hands to libpq: the default is now the socket directory %s. Every service that reads this file without %s gets the socket directory too (one that sets %s keeps its own value)",
			v.Service, e.RailsVar, v.Pos.File, v.Pos.Line, v.Value, mp, e.RailsVar, e.RailsVar))
}

// addEnvAfter adds KEY=value right after the variable v
// (compose.Editor.AddEnvAfter) and records the change: the variables it
// adds (PGPORT, a catalogued port variable, JAVA_TOOL_OPTIONS) are read by
// the client's libpq or JVM.
func (mg *migration) addEnvAfter(v compose.EnvVar, key, value, reason string) {
	if mg.ed.AddEnvAfter(v, key, value, reason) {
		// The variables it adds are read by the client's libpq (PGPORT, a
		// port variable) or JVM: recorded in libpq's environment form.
		env := dialect.HostVar("PGHOST")
		mg.rep.Change(Change{Kind: "value", Pos: v.Pos, Service: v.Service, Key: key, Dialect: env.Name, After: value, Reason: reason, Basis: dialect.ReaderOf(env.Name)})
	}
}

// warnDefault says that the rewritten default only applies while the
// variable is empty or unset. The message quotes no value (a default may
// hold a password).
func (mg *migration) warnDefault(v compose.EnvVar) {
	d, ok := compose.UsedDefault(v.Raw, mg.p.Env)
	if !ok {
		return
	}
	when := "a non-empty " + d.Name
	if d.Op == "-" {
		when = d.Name + " set to anything, even the empty string,"
	}
	mg.rep.Add("UDS143", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s is ${%s%s...}: the default inside the reference now reaches the socket, but %s in the environment or .env overrides it and stays as it is (on TCP)", v.Service, v.Key, d.Name, d.Op, when))
}

// mountHomes are the mappings where a client's socket mount goes: the
// mapping in the file that holds each edited value (a value in an env file
// or an application's configuration file counts for its ImageHome), reduced to
// one when a file loaded in every combination is among them.
func mountHomes(p *analyze.Project, service string, edges []*analyze.Edge) []compose.ServiceDef {
	var homes []compose.ServiceDef
	for _, e := range edges {
		h := p.ImageHome(service)
		if (e.InFile == nil || e.InFile.Src != nil) && e.Var.EnvFile == nil && e.Var.Src != nil {
			if _, n := yamledit.OwnKey(compose.ServicesMapping(e.Var.Src), service); n != nil {
				h = compose.ServiceDef{Src: e.Var.Src, Node: yamledit.Deref(n)}
			}
		}
		if h.Src == nil {
			continue
		}
		if p.AlwaysLoaded(h.Src) {
			return []compose.ServiceDef{h}
		}
		if !slices.Contains(homes, h) {
			homes = append(homes, h)
		}
	}
	return homes
}

// inForm writes a socket-form URI (the empty form, dialect.ToSocket's
// result) in the form its reader takes (consumer.Form): localhost in the
// authority, ?host= naming the socket file, or Ecto's ?socket_dir=.
func inForm(out string, f consumer.Form) (string, error) {
	switch f {
	case consumer.Localhost:
		return libpq.WithAuthorityHost(out, "localhost")
	case consumer.File:
		return libpq.WithSocketFile(out)
	case consumer.SocketDir:
		return libpq.WithSocketDirParam(out)
	}
	return out, nil
}
