package analyze

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// poolerHop returns the edges of a pooler's own connection to PostgreSQL.
// Only what a source of knowledge covers is touched: the variables of a
// catalogued pooler image (edoburu/pgbouncer writes DB_HOST into
// pgbouncer.ini's host=, which PgBouncer reads as a socket directory) and
// --host-var. Any other pooler configuration is in the image's terms
// (pgbouncer.ini, entrypoint parsing) and stays as it is. The pooler's
// clients stay on TCP to it (UDS121).
func (cl *collector) poolerHop(name string) []*Edge {
	e := catalog.Lookup(cl.p.Model.Services[name].Image)
	var out []*Edge
	for _, v := range cl.p.ServiceEnv(name) {
		known := slices.Contains(cl.opts.HostVars, name+"/"+v.Key)
		if e != nil && e.Var(v.Key) != nil {
			known = true
		}
		find := func(host string) *DB { return cl.dbAt(v, host) }
		if !known || cl.catalogueKeeps(v, find) {
			continue
		}
		if ed := cl.splitVar(v, find); ed != nil {
			out = append(out, ed)
		}
	}
	return out
}

// catalogueKeeps reports (with a UDS151 warning) a URL variable that the
// service's catalogued image cannot take in socket form (or only with a
// library it does not ship and nothing adds: extension_dir), when it
// reaches one of dbs; such a value stays on TCP. A variable whose reader
// the user names (--consumer) is the user's to decide, as issue #20's
// order has it.
func (cl *collector) catalogueKeeps(v compose.EnvVar, find func(host string) *DB) bool {
	e, cv := hostvar.CatalogueVar(cl.p.Project, v.Service, v.Key)
	if cv == nil || cv.Role != catalog.RoleURL || hostvar.NamesReader(cl.opts.Consumers, v.Service, v.Key) {
		return false
	}
	missingLib := cv.Directory && cv.ExtensionDir != "" && !extensionReaches(cl.p, v.Service, cv.ExtensionDir)
	if cv.Directory && !cv.NoQueryPort && !missingLib {
		return false
	}
	var db *DB
	hosts, _, socket := dialect.Classify(v.Value)
	for _, h := range hosts {
		if d := find(h); d != nil {
			db = d
		}
	}
	if db == nil && !socket {
		db = unknownURL(v.Value, find)
	}
	if db == nil && !socket && !strings.Contains(v.Value, "\n") {
		// a document over several lines is read setting by setting
		// (envDocs), each asking the catalogue in turn
		db = embeddedURL(v.Value, find)
	}
	if db == nil {
		return false
	}
	b := hostvar.CatalogueBasis(e, cv.Reason)
	if cv.Directory && !missingLib {
		// The driver takes ?host= but not ?port=: only a server on 5432
		// is reached through the socket form.
		if db.Port == 5432 {
			return false
		}
		b.Detail = fmt.Sprintf("the image's driver takes the socket directory from ?host= and ignores ?port= (it opens .s.PGSQL.5432), while %s listens on %d", db.Name, db.Port)
	}
	cl.note("UDS151", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s names %s, but %s (%s); left on TCP", v.Service, v.Key, db.Name, b.Detail, b.Citation())).Basis = &b
	return true
}

// extensionReaches reports whether a service can have the library its
// catalogued image lacks: it builds its own image, or mounts something at,
// under or above dir (the image's extension directory).
func extensionReaches(p *Project, service, dir string) bool {
	svc := p.Model.Services[service]
	if svc.Build != nil {
		return true
	}
	for _, m := range svc.Volumes {
		t := path.Clean(m.Target)
		if t == dir || strings.HasPrefix(t, dir+"/") || strings.HasPrefix(dir, t+"/") {
			return true
		}
	}
	return false
}

// embeddedURL returns the database that a connection URL inside a
// catalogued variable's value reaches, where the value as a whole is no
// URL: a JVM option among others (Alfresco's JAVA_OPTS:
// -Ddb.url=jdbc:postgresql://postgres:5432/alfresco). Each word, and each
// side of its =, is read as a connection value.
func embeddedURL(value string, find func(host string) *DB) *DB {
	for _, w := range strings.FieldsFunc(value, func(r rune) bool {
		return unicode.IsSpace(r) || r == '=' || r == '"' || r == '\''
	}) {
		hosts, dname, _ := dialect.Classify(w)
		if dname == "" {
			continue
		}
		for _, h := range hosts {
			if db := find(h); db != nil {
				return db
			}
		}
	}
	return nil
}
