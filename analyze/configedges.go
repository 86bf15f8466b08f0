package analyze

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/configfile"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/finding"
)

// ConfigValue is a connection value written in a configuration file of
// the project that reaches a client's container (bind mount, configs:,
// COPY into an image built here). Nothing interpolates such a file, so
// junixsocket's $FactoryArg is written with one $.
type ConfigValue struct {
	Path  string // as reports and -w use it
	Data  []byte
	Value configfile.Value
	// Src, when set, is the compose file whose environment value holds
	// the setting inside a configuration document (envdoc.go): val's range
	// is in Src, compose interpolates it, and docKey names the setting.
	Src    *compose.Source
	DocKey string
}

// configEdges returns the TCP connection values in configuration files
// reaching each client, as edges; socket-form values mark their service as
// already connected (no UDS131 on a second run).
func (fv fileValues) configEdges() []*Edge {
	var out []*Edge
	for _, s := range fv.settings() {
		if e := fv.edge(s.Service, s.Path, s.Data, s.Value); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// ConfigSetting is one setting of a configuration file that a client
// reads.
type ConfigSetting struct {
	Service, Path string // Path as reports and -w use it
	Data          []byte
	Value         configfile.Value
}

// settings lists the settings of the configuration files reaching each
// client (a file bind mount, configs:, secrets:, a COPY into an image
// built here), in service order; a file beyond the limits is noted
// (UDS173) and skipped.
func (fv fileValues) settings() []ConfigSetting {
	cl := fv.cl
	var out []ConfigSetting
	clients := cl.clientServices()
	// A file mounted on its own (a file bind mount, configs:) belongs to
	// that service; another that sees it only inside a mounted directory
	// does not read it on that account.
	direct := map[string]bool{}
	for _, name := range clients {
		for _, r := range cl.scopes.ReachingFiles(name) {
			if fi, err := os.Stat(r); err == nil && fi.Mode().IsRegular() {
				direct[r] = true
			}
		}
	}
	for _, name := range clients {
		own := map[string]bool{}
		for _, r := range cl.scopes.ReachingFiles(name) {
			own[r] = true
		}
		// A file the service's catalogued image reads (catalog.File) is
		// read there, with the entry's key, not as a file of its name's
		// format.
		claimed := map[string]bool{}
		for _, cf := range fv.catalogueFiles(name) {
			claimed[cf.abs] = true
		}
		for _, abs := range cl.scopes.Of(name).Files() {
			if (direct[abs] && !own[abs]) || claimed[abs] {
				continue
			}
			rel, _ := filepath.Rel(cl.p.Model.WorkingDir, abs)
			format, ok := configfile.For(filepath.ToSlash(rel))
			secretKey, secret := cl.scopes.SecretFiles(name)[abs]
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
				if !mayConnect(data, cl.dbs) {
					continue // map data, a fixture: nothing there names a database
				}
				cl.overLimit(finding.Pos{File: path}, name, fmt.Sprintf("%s is larger than %d KB", path, evidence.MaxFileSize>>10))
				continue
			}
			vals, err := format.Values(data)
			var limit *configfile.LimitError
			if errors.As(err, &limit) {
				if !mayConnect(data, cl.dbs) {
					continue
				}
				cl.overLimit(finding.Pos{File: path, Line: limit.Line, Col: limit.Col}, name, path+" is "+limit.Msg)
				continue
			}
			if err != nil {
				continue
			}
			for _, v := range vals {
				if secret {
					v.Key = secretKey
				}
				out = append(out, ConfigSetting{Service: name, Path: path, Data: data, Value: v})
			}
		}
	}
	return out
}

// mayConnect reports whether a file the tool does not read (beyond a
// limit) could hold a connection value: its text names PostgreSQL
// ("postgres", "jdbc:", the port 5432 as a number of its own) or a
// database service as a word. A
// GeoJSON map or a large fixture names none, and a warning that it was
// not read would only be noise (trial 18, redash's *.geo.json).
func mayConnect(data []byte, dbs []*DB) bool {
	low := bytes.ToLower(data)
	for _, s := range []string{"postgres", "jdbc:"} {
		if bytes.Contains(low, []byte(s)) {
			return true
		}
	}
	if port5432RE.Match(low) {
		return true
	}
	for _, db := range dbs {
		lower := &DB{}
		for _, n := range db.Names {
			lower.Names = append(lower.Names, strings.ToLower(n))
		}
		if len(lower.Names) > 0 && nameRE(lower).Match(low) {
			return true
		}
	}
	return false
}

// port5432RE finds the PostgreSQL port as a number of its own, not inside
// a coordinate (135.54321) or a longer number.
var port5432RE = regexp.MustCompile(`(^|[^0-9.])5432($|[^0-9.])`)

// overLimit reports, once per file, a configuration file the tool does
// not read because it is beyond a limit (README, "Security and limits"):
// the project's own files are read up to evidence.MaxFileSize, nested up
// to configfile.MaxDepth.
func (cl *collector) overLimit(at finding.Pos, service, what string) {
	if cl.tooBig[at.File] {
		return
	}
	cl.tooBig[at.File] = true
	cl.note("UDS173", at, service, "", fmt.Sprintf("%s, beyond what the tool reads in a configuration file (%d KB, %d levels of nesting): not read; a connection value in it stays as it is", what, evidence.MaxFileSize>>10, configfile.MaxDepth))
}

// configEdge classifies one setting of a configuration file.
func (fv fileValues) edge(service, path string, data []byte, v configfile.Value) *Edge {
	cl := fv.cl
	hosts, dname, socket := dialect.Classify(v.Value)
	if socket {
		cl.sawSocket(SocketSetting{Service: service, Key: v.Key, Pos: finding.Pos{File: path, Line: v.Line, Col: v.Col},
			Dialect: dname, Value: v.Value, In: &ConfigValue{Path: path, Data: data, Value: v}})
		return nil
	}
	if dname == "" {
		return nil
	}
	ev := compose.EnvVar{Service: service, Key: v.Key, Raw: v.Value, Value: v.Value, Pos: finding.Pos{File: path, Line: v.Line, Col: v.Col}}
	var hit *DB
	for _, h := range hosts {
		if db := cl.dbAt(ev, h); db != nil {
			hit = db
		}
	}
	if hit == nil {
		return nil
	}
	if len(hosts) > 1 {
		cl.note("UDS110", finding.Pos{File: path, Line: v.Line, Col: v.Col}, service, v.Key,
			fmt.Sprintf("%s reads %s from %s, which lists several hosts for failover; a Unix socket reaches one server and cannot fail over, so the value is left on TCP", service, v.Key, path))
		return nil
	}
	d, _ := dialect.Lookup(dname)
	if (socketUses{cl}).libraryMissing(ev, d, hit, v.Key+" in "+path) {
		return nil
	}
	e := &Edge{Var: ev, Dialect: dname, DB: hit, Port: hit.Port, InFile: &ConfigValue{Path: path, Data: data, Value: v}, Basis: dialect.ReaderOf(dname)}
	if d.ByReader {
		form, basis, ok := (decisions{cl}).reader(ev, hit)
		if !ok {
			return nil
		}
		e.Form, e.Basis = form, basis
	}
	return e
}

// clientServices lists the clients (Topology.Clients) that are not
// poolers: the services whose application reads connection values.
func (cl *collector) clientServices() []string {
	var out []string
	for _, c := range cl.clients {
		if !c.Pooler && !(assetBuilds{cl}).only(c.Name) {
			out = append(out, c.Name) // an asset build reads no configuration of the app
		}
	}
	return out
}
