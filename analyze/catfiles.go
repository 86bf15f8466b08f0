package analyze

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/configfile"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// cataloguedFiles returns the edges of the configuration file settings
// the catalogue says a client's image reads (catalog.File: gatus'
// storage.path in /config/config.yaml, pretalx's [database] host): the file
// the service bind-mounts at that path, read in its format, its setting
// edited in place on the entry's basis. A socket-form setting marks the
// service as connected (revert takes it back). Entries of one key are tried
// in order and the first file the service mounts is the one read (a later
// path is the image's fallback); none is read where the service sets one
// of the entry's path_vars (another file) or unless variables (the image
// then reads the variable, not the file).
func (fv fileValues) cataloguedFiles() []*Edge {
	cl := fv.cl
	var out []*Edge
	for _, name := range cl.clientServices() {
		for _, cf := range fv.catalogueFiles(name) {
			if e := fv.catalogueSetting(name, cf); e != nil {
				out = append(out, e)
			}
		}
	}
	return out
}

// catalogueFile is a file a service mounts where its catalogued image
// reads one, and the setting read there.
type catalogueFile struct {
	entry *catalog.Entry
	file  *catalog.File
	abs   string
}

// catalogueFiles lists the files of a service's catalogued image it
// mounts and the image reads (see cataloguedFiles).
func (fv fileValues) catalogueFiles(service string) []catalogueFile {
	cl := fv.cl
	e := catalog.Lookup(cl.p.Model.Services[service].Image)
	if e == nil || len(e.Files) == 0 {
		return nil
	}
	env := cl.p.ServiceEnv(service)
	set := func(keys []string) bool {
		for _, k := range keys {
			if compose.EnvLookup(env, k) != "" {
				return true
			}
		}
		return false
	}
	var out []catalogueFile
	found := map[string]bool{}
	for i := range e.Files {
		f := &e.Files[i]
		if found[f.Key] || set(f.PathVars) {
			continue
		}
		abs := cl.scopes.MountedSource(service, f.Path)
		if abs == "" || cl.p.Escapes(abs) != nil {
			continue
		}
		if _, err := cl.p.ReadFile(abs); err != nil {
			continue // not there: the image falls back to the next path
		}
		found[f.Key] = true
		if !set(f.Unless) {
			out = append(out, catalogueFile{entry: e, file: f, abs: abs})
		}
	}
	return out
}

// catalogueSetting reads the setting of one catalogued file and returns
// its edge, or nil: the setting is absent, When does not hold, it is in
// socket form already (recorded), names no database, or its port is not
// the server's (UDS120).
func (fv fileValues) catalogueSetting(service string, cf catalogueFile) *Edge {
	cl := fv.cl
	f := cf.file
	path := cl.p.DisplayPath(cf.abs)
	data, err := cl.readFile(path)
	if err != nil {
		return nil
	}
	read := configfile.INI
	if f.Format == catalog.FormatYAML {
		read = configfile.YAML
	}
	vals, err := read(data)
	if err != nil {
		return nil
	}
	get := func(key string) (configfile.Value, bool) {
		for _, v := range vals {
			if strings.EqualFold(v.Key, key) {
				return v, true
			}
		}
		return configfile.Value{}, false
	}
	v, ok := get(f.Key)
	if w := f.When; !ok || (w != nil && !hasValue(get, w.Key, w.Value)) {
		return nil
	}
	at := finding.Pos{File: path, Line: v.Line, Col: v.Col}
	basis := hostvar.CatalogueBasis(cf.entry, f.Reason)
	ev := compose.EnvVar{Service: service, Key: f.Key, Raw: v.Value, Value: v.Value, Pos: at}
	in := &ConfigValue{Path: path, Data: data, Value: v}
	if f.Role == catalog.RoleHost {
		host := strings.TrimSpace(v.Value)
		port := 0
		if p, ok := get(f.Port); ok && f.Port != "" {
			port, _ = atoiPort(strings.TrimSpace(p.Value))
		}
		if strings.HasPrefix(host, "/") {
			cl.sawSocket(SocketSetting{Service: service, Key: f.Key, Pos: at, Dialect: dialect.AppHostVar(false).Name, Value: host, In: in, Host: true, Port: cmp.Or(port, 5432)})
			return nil
		}
		db := cl.dbAt(ev, host)
		if db == nil || !f.Directory {
			return nil
		}
		if port != db.Port && !(port == 0 && db.Port == 5432) {
			cl.note("UDS120", at, service, f.Key,
				fmt.Sprintf("%s reads %s from %s (%s), which names %s, listening on port %d, and %s does not say %d: the driver would open the socket file of another port, so the setting is left on TCP; set %s to %s and %s to %d together by hand",
					service, f.Key, path, cf.entry.Family, db.Name, db.Port, f.Port, db.Port, f.Key, cl.opts.MountPath, f.Port, db.Port))
			return nil
		}
		return &Edge{Var: ev, Dialect: dialect.AppHostVar(false).Name, DB: db, Port: db.Port, InFile: in, Basis: &basis}
	}
	hosts, dname, socket := dialect.Classify(v.Value)
	if dname != dialect.URI && dname != dialect.DSN {
		return nil // not a libpq-grammar value: not what the entry describes
	}
	if socket {
		cl.sawSocket(SocketSetting{Service: service, Key: f.Key, Pos: at, Dialect: dname, Value: v.Value, In: in})
		return nil
	}
	if len(hosts) != 1 || !f.Directory {
		return nil
	}
	db := cl.dbAt(ev, hosts[0])
	if db == nil {
		return nil
	}
	e := &Edge{Var: ev, Dialect: dname, DB: db, Port: db.Port, InFile: in, Basis: &basis, Form: consumer.Empty}
	if f.URIHost != "" {
		e.Form = consumer.Localhost
	}
	return e
}

// hasValue reports whether the setting key of a file is value.
func hasValue(get func(string) (configfile.Value, bool), key, value string) bool {
	v, ok := get(key)
	return ok && strings.TrimSpace(v.Value) == value
}
