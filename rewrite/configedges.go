package rewrite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/configfile"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// configValue is a connection value written in a configuration file of
// the project that reaches a client's container (bind mount, configs:,
// COPY into an image built here). Nothing interpolates such a file, so
// junixsocket's $FactoryArg is written with one $.
type configValue struct {
	path string // as reports and -w use it
	data []byte
	val  configfile.Value
	// src, when set, is the compose file whose environment value holds
	// the setting inside a configuration document (envdoc.go): val's range
	// is in src, compose interpolates it, and docKey names the setting.
	src    *Source
	docKey string
}

// configEdges returns the TCP connection values in configuration files
// reaching each client, as edges; socket-form values mark their service as
// already connected (no UDS131 on a second run).
func (fv fileValues) configEdges() []*edge {
	var out []*edge
	for _, s := range fv.settings() {
		if e := fv.edge(s.service, s.path, s.data, s.val); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// configSetting is one setting of a configuration file that a client
// reads.
type configSetting struct {
	service, path string // path as reports and -w use it
	data          []byte
	val           configfile.Value
}

// settings lists the settings of the configuration files reaching each
// client (a file bind mount, configs:, secrets:, a COPY into an image
// built here), in service order; a file beyond the limits is noted
// (UDS173) and skipped.
func (fv fileValues) settings() []configSetting {
	cl := fv.cl
	var out []configSetting
	clients := cl.clientServices()
	// A file mounted on its own (a file bind mount, configs:) belongs to
	// that service; another that sees it only inside a mounted directory
	// does not read it on that account.
	direct := map[string]bool{}
	for _, name := range clients {
		for _, r := range cl.scopes.reachingFiles(name) {
			if fi, err := os.Stat(r); err == nil && fi.Mode().IsRegular() {
				direct[r] = true
			}
		}
	}
	for _, name := range clients {
		own := map[string]bool{}
		for _, r := range cl.scopes.reachingFiles(name) {
			own[r] = true
		}
		for _, abs := range cl.scopes.of(name).Files() {
			if direct[abs] && !own[abs] {
				continue
			}
			rel, _ := filepath.Rel(cl.p.Model.WorkingDir, abs)
			format, ok := configfile.For(filepath.ToSlash(rel))
			secretKey, secret := cl.scopes.secretFiles(name)[abs]
			if secret {
				// A secret holds the value alone, whatever its name.
				format, ok = configfile.Format{Name: "secret", Values: configfile.WholeFile}, true
			}
			if !ok {
				continue
			}
			path := cl.p.DisplayPath(abs)
			data, err := cl.readFile(path)
			if err != nil {
				continue
			}
			if len(data) > evidence.MaxFileSize {
				cl.overLimit(Pos{File: path}, name, fmt.Sprintf("%s is larger than %d KB", path, evidence.MaxFileSize>>10))
				continue
			}
			vals, err := format.Values(data)
			var limit *configfile.LimitError
			if errors.As(err, &limit) {
				cl.overLimit(Pos{File: path, Line: limit.Line, Col: limit.Col}, name, path+" is "+limit.Msg)
				continue
			}
			if err != nil {
				continue
			}
			for _, v := range vals {
				if secret {
					v.Key = secretKey
				}
				out = append(out, configSetting{service: name, path: path, data: data, val: v})
			}
		}
	}
	return out
}

// overLimit reports, once per file, a configuration file the tool does
// not read because it is beyond a limit (README, "Security and limits"):
// the project's own files are read up to evidence.MaxFileSize, nested up
// to configfile.MaxDepth.
func (cl *collector) overLimit(at Pos, service, what string) {
	if cl.tooBig[at.File] {
		return
	}
	cl.tooBig[at.File] = true
	cl.note("UDS173", at, service, "", fmt.Sprintf("%s, beyond what the tool reads in a configuration file (%d KB, %d levels of nesting): not read; a connection value in it stays as it is", what, evidence.MaxFileSize>>10, configfile.MaxDepth))
}

// configEdge classifies one setting of a configuration file.
func (fv fileValues) edge(service, path string, data []byte, v configfile.Value) *edge {
	cl := fv.cl
	hosts, dname, socket := dialect.Classify(v.Value)
	if socket {
		cl.cfgSocket[service] = fmt.Sprintf("%s:%d", path, v.Line)
		return nil
	}
	if dname == "" {
		return nil
	}
	ev := compose.EnvVar{Service: service, Key: v.Key, Raw: v.Value, Value: v.Value, Pos: Pos{File: path, Line: v.Line, Col: v.Col}}
	var hit *dbService
	for _, h := range hosts {
		if db := cl.dbAt(ev, h); db != nil {
			hit = db
		}
	}
	if hit == nil {
		return nil
	}
	if len(hosts) > 1 {
		cl.note("UDS110", Pos{File: path, Line: v.Line, Col: v.Col}, service, v.Key,
			fmt.Sprintf("%s reads %s from %s, which lists several hosts for failover; a Unix socket reaches one server and cannot fail over, so the value is left on TCP", service, v.Key, path))
		return nil
	}
	d, _ := dialect.Lookup(dname)
	if (socketUses{cl}).libraryMissing(ev, d, hit, v.Key+" in "+path) {
		return nil
	}
	e := &edge{v: ev, dialect: dname, db: hit, port: hit.port, cfg: &configValue{path: path, data: data, val: v}, basis: dialect.ReaderOf(dname)}
	if d.ByReader {
		form, basis, ok := (uriReaders{cl}).decide(ev, hit)
		if !ok {
			return nil
		}
		e.form, e.basis = form, basis
	}
	return e
}

// clientServices lists the clients (analysis.clients) that are not
// poolers: the services whose application reads connection values.
func (cl *collector) clientServices() []string {
	var out []string
	for _, c := range cl.clients {
		if !c.pooler {
			out = append(out, c.name)
		}
	}
	return out
}

// rewriteConfigEdge writes the socket form of a configuration file value
// in place. A file mounted on several services is edited once.
func (mg *migration) rewriteConfigEdge(e *edge, mp string) {
	v, cv := e.v, e.cfg
	d, _ := dialect.Lookup(e.dialect)
	if d.Needs != nil && !mg.javaWarn[v.Service] {
		mg.javaWarn[v.Service] = true
		inFile := v.Key + " in " + v.Pos.File
		if cv.src != nil {
			inFile = "" // a compose value: written $$FactoryArg, as in the environment
		}
		mg.rep.Add("UDS101", v.Pos, v.Service, v.Key, d.Needs(v.Service, inFile))
	}
	key := cv.path + ":" + strconv.Itoa(cv.val.Start)
	if mg.cfgDone[key] {
		return
	}
	mg.cfgDone[key] = true
	out, notes, err := dialect.ToSocket(e.dialect, v.Value, mp, e.db.port)
	if err == nil && d.Factory != nil {
		style := mg.opts.JDBCFactory
		if style == JDBCFactorySysprop {
			style = JDBCFactoryArg // the JVM property lives in the compose file, not here
		}
		out, err = d.Factory(out, style)
	}
	if err == nil && e.form == consumer.Localhost {
		out, err = libpq.WithAuthorityHost(out, "localhost")
	}
	if err != nil {
		mg.rep.Add("UDS111", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s in %s cannot be rewritten as written (%v); set it to the socket form by hand", v.Key, v.Pos.File, redactErr(err)))
		return
	}
	reads := fmt.Sprintf("a configuration file %s reads; not interpolated by compose", v.Service)
	if cv.src != nil {
		// Inside a compose value: compose interpolates, so a $ is $$.
		mg.ed.YAML(cv.src).Replace(cv.val.Start, cv.val.End, strings.ReplaceAll(cv.val.Render(out), "$", "$$"))
		reads = fmt.Sprintf("%s of the configuration document in %s/%s", cv.docKey, v.Service, v.Key)
	} else {
		mg.ed.EditFile(cv.path, cv.data, cv.val.Start, cv.val.End, cv.val.Render(out))
	}
	mg.noteEvidence(e, mp)
	mg.noteRailsDefault(e, mp)
	if d.HostInQuery && strings.HasSuffix(cv.path, "database.yml") {
		mg.rep.Add("UDS123", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s reads url from %s: Rails 7.0 and later read ?host= there; before 7.0 it is ignored and the app stays on TCP, so write the host percent-encoded instead (postgres://USER@%s/DB)", v.Service, v.Pos.File, strings.ReplaceAll(mp, "/", "%2F")))
	}
	for _, n := range notes {
		mg.rep.Add(n.Code, v.Pos, v.Service, v.Key, v.Service+" "+v.Pos.File+" "+v.Key+": "+n.Message)
	}
	mg.rep.Change(Change{Kind: "value", Pos: v.Pos,
		Service: v.Service, Key: v.Key, Dialect: e.dialect, Before: dialect.Redact(e.dialect, v.Value), After: dialect.Redact(e.dialect, out),
		Reason: fmt.Sprintf("reach %s through its socket in %s (%s)", e.db.name, mp, reads), Basis: e.basis})
}
