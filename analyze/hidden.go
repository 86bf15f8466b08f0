package analyze

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// warnHidden reports clients that depend on a database (depends_on, links)
// but hold no connection value the tool can see: their URL is in a mounted
// config file, baked into the image, or assembled in a script, and still
// uses TCP unless someone changes it.
func (hc hiddenClients) warn(edges []*Edge) {
	cl := hc.cl
	dbs := cl.dbs
	seen := map[string]bool{}
	for _, e := range edges {
		seen[e.Var.Service] = true
	}
	// A service already reported (split variables, a URL in its command,
	// an unknown scheme, a value that does not parse) needs no second,
	// vaguer warning.
	for s := range cl.reported() {
		seen[s] = true
	}
	for _, f := range cl.badConn {
		seen[f.Service] = true
	}
	for _, name := range cl.clientServices() {
		if seen[name] {
			continue
		}
		svc := cl.p.Model.Services[name]
		var dep *DB
		for _, db := range dbs {
			if _, ok := svc.DependsOn[db.Name]; ok {
				dep = db
			}
			for target := range compose.LinkAliases(svc) {
				if compose.LinkAliases(svc)[target] == db.Name {
					dep = db
				}
			}
		}
		if dep == nil || (hiddenClients{cl}).usesSocket(name) {
			continue
		}
		if svc.NetworkMode == "service:"+dep.Name {
			// compose-go folds network_mode: service:db into depends_on;
			// the tie the user wrote is network_mode (changelog.com's
			// devcontainer, trial 10 N2).
			(hiddenClients{cl}).sharedNamespace(name, dep)
			continue
		}
		file, line, aside := (hiddenClients{cl}).connection(name, dep)
		if file != "" {
			step := "write that connection as " + manualForm(file, dep, cl.opts.MountPath)
			if q, takers := bareHost((hiddenClients{cl}).lineText(file, line), dep.Name), hostTakers(file); q != "" && takers != "" {
				step = fmt.Sprintf("the line holds a host only, so write the socket directory there, %s%s%s in place of %s%s%s (%s)", q, cl.opts.MountPath, q, q, dep.Name, q, takers)
			}
			if ds := (hiddenClients{cl}).defaultStep(name, file, line, dep, step); ds != "" {
				step = ds
			}
			cl.note("UDS131", finding.Pos{File: file, Line: line, Col: 1}, name, file,
				fmt.Sprintf("%s depends on %s and %s:%d names it in a form the tool does not edit (a literal host in code or a format it does not read): %s by hand, and mount %s's socket volume on %s%s", name, dep.Name, file, line, step, dep.Name, name, (hiddenClients{cl}).dotenvSetting(name, file, line)))
			continue
		}
		src, _ := cl.p.ServiceNode(name)
		kn, _ := yamledit.OwnKey(compose.ServicesMapping(src), name)
		key := (hiddenClients{cl}).dependencyKey(name, dep.Name)
		if hint := (hiddenClients{cl}).catalogueHint(name, dep); hint != "" {
			cl.note("UDS131", yamledit.NodePos(src, kn), name, key,
				fmt.Sprintf("%s/%s names %s, but none of %s's environment values connects to it: %s%s", name, key, dep.Name, name, hint, aside.note(name, dep.Name)))
			continue
		}
		if aside != nil && aside.Template && len(aside.Vars) > 0 {
			cl.note("UDS131", yamledit.NodePos(src, kn), name, key,
				fmt.Sprintf("%s/%s names %s, but none of %s's environment values connects to it: %s:%d is a template whose host comes from %s when it is rendered (unset in %s's environment, so the template's default %s); %s reads the file rendered from it, which the tool does not see: set %s to %s where the template is rendered (a socket directory works where its reader is a libpq-family driver), or write the rendered file's host as %s, and add the socket volume by hand", name, key, dep.Name, name, aside.File, aside.Line, strings.Join(aside.Vars, ", "), name, dep.Name, name, aside.Vars[0], cl.opts.MountPath, manualForm("", dep, cl.opts.MountPath)))
			continue
		}
		if len(cl.scopes.ReachingFiles(name)) == 0 {
			cl.note("UDS131", yamledit.NodePos(src, kn), name, key,
				fmt.Sprintf("%s/%s names %s, but none of %s's environment values connects to it, and no file of the project reaches it (no build context here, no mounted source): the connection is baked into the image %s or built by a script; write it as %s and add the socket volume by hand", name, key, dep.Name, name, svc.Image, manualForm("", dep, cl.opts.MountPath)))
			continue
		}
		if code, n := (hiddenClients{cl}).codeInView(name, dep); code != "" {
			cl.note("UDS137", yamledit.NodePos(src, kn), name, key,
				fmt.Sprintf("%s/%s names %s, but neither %s's environment nor the files that reach its container, its code among them (%d program files: %s, ...; test and fixture folders such as test/ and tests/ are not read), name %s as a host%s: as configured, %s opens no connection to %s (the dependency only orders start-up, or a variable left unset selects another database), so there is nothing to migrate; if a value from outside the project (the base image, the shell) does connect it, write that value as %s and add the socket volume by hand", name, key, dep.Name, name, n, code, dep.Name, aside.note(name, dep.Name), name, dep.Name, manualForm("", dep, cl.opts.MountPath)))
			continue
		}
		where := "a mounted config file"
		if secrets := cl.scopes.SecretFiles(name); len(secrets) > 0 {
			var files []string
			for _, f := range slices.Sorted(maps.Keys(secrets)) {
				files = append(files, cl.p.DisplayPath(f)+" ("+secrets[f]+")")
			}
			where = "a secret file it reads (" + strings.Join(files, ", ") + ") in a form the tool does not edit, a mounted config file"
		}
		cl.note("UDS131", yamledit.NodePos(src, kn), name, key,
			fmt.Sprintf("%s/%s names %s, but none of %s's environment values connects to it%s: the connection is in %s, baked into the image or built by a script, which the tool cannot see; write it as %s and add the socket volume by hand", name, key, dep.Name, name, aside.note(name, dep.Name), where, manualForm("", dep, cl.opts.MountPath)))
	}
}

// note says, inside a warning about service's tie to db, why the line
// that names db is not its connection; "" for none.
func (a *asideLine) note(service, db string) string {
	switch {
	case a == nil:
		return ""
	case a.Template:
		return fmt.Sprintf(" (%s:%d names %s only as a template's default, %s does not read that file)", a.File, a.Line, db, service)
	}
	return fmt.Sprintf(" (%s:%d names %s only in a string of code that opens no connection with it, such as a form's prefill or an example: not %s's connection)", a.File, a.Line, db, service)
}

// sharedNamespace reports (UDS142) a client in a database's network
// namespace (network_mode: service:DB) whose connection no value shows:
// it reaches the server as localhost over TCP. The message names
// network_mode and, where a file that reaches the client names localhost
// as a database's host (Ecto's hostname: System.get_env("DB_HOST",
// "localhost")), that line and the socket form for its kind of file.
func (hc hiddenClients) sharedNamespace(name string, db *DB) {
	cl := hc.cl
	src, node := cl.p.ServiceNode(name)
	at := yamledit.NodePos(src, node)
	if kn, _ := yamledit.OwnKey(node, "network_mode"); kn != nil {
		at = yamledit.NodePos(src, kn)
	}
	where, file := "no value or file the tool reads shows where", ""
	if f, line, host := hc.localConnection(name); f != "" {
		where, file = fmt.Sprintf("%s:%d names %s as its database's host", f, line, host), f
	}
	cl.note("UDS142", at, name, "network_mode",
		fmt.Sprintf("%s/network_mode is service:%s: %s shares %s's network namespace and reaches it as localhost over TCP (%s); left on TCP: to use the socket, mount %s's socket volume on %s and write that connection as %s by hand", name, db.Name, name, db.Name, where, db.Name, name, manualForm(file, db, cl.opts.MountPath)))
}

// localDBRE marks text about a database, not a web server (Phoenix's
// url: [host: "localhost"]): Ecto's Repo and hostname:, Django's
// DATABASES, a DB_HOST variable, a database or driver name.
var localDBRE = regexp.MustCompile(`(?i)\b(?:db|dbs|databases?|postgres(?:ql)?|pg|psql|sql|repo|hostname)\b|\bdb_|_db\b|\.Repo\b`)

// dataExts are files of data, not of code or configuration: a database
// dump's rows (dispatch's data/dispatch-sample-data.dump holds
// http://localhost:8080/... beside "Schema: ..."), tables, logs.
var dataExts = []string{".sql", ".dump", ".csv", ".tsv", ".log", ".svg"}

// localContext is how many lines above a localhost host may say that it
// is a database's (DATABASES = { ... "HOST": "127.0.0.1").
const localContext = 6

// localConnection finds the first line of the files that reach a service
// that names localhost (or 127.0.0.1, host says which) as a host where
// that line or the few above it speak of a database.
func (hc hiddenClients) localConnection(service string) (file string, line int, host string) {
	local := nameRE(&DB{Names: []string{"localhost", "127.0.0.1"}})
	for _, abs := range hc.cl.scopes.Of(service).Files() {
		if slices.Contains(dataExts, strings.ToLower(filepath.Ext(abs))) {
			continue
		}
		path := hc.cl.p.DisplayPath(abs)
		data, err := hc.cl.readFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			if connectionLine([]byte(line), local) > 0 && localDBRE.MatchString(strings.Join(lines[max(0, i-localContext):i+1], "\n")) {
				host = "localhost"
				if !strings.Contains(line, host) {
					host = "127.0.0.1"
				}
				return path, i + 1, host
			}
		}
	}
	return "", 0, ""
}

// usesSocket reports whether a service already has a socket-form value.
func (hc hiddenClients) usesSocket(service string) bool {
	cl := hc.cl
	if cl.cfgSocket[service] != "" {
		return true
	}
	for _, v := range cl.p.ServiceEnv(service) {
		if _, _, socket := dialect.Classify(v.Value); socket {
			return true
		}
		// A host variable holding a directory, by migrate's own rules
		// (evidence included: DB_SERVICE read as Django's HOST), is a
		// socket connection: the tool's own output is not "no connection".
		if strings.HasPrefix(v.Value, "/") && hostvar.WrittenAsDir(cl.p.Project, cl.scopes, cl.opts.HostVars, service, v.Key) {
			return true
		}
	}
	return false
}

// dependencyKey names the key that ties a client to a database: links
// when it names it, else depends_on.
func (hc hiddenClients) dependencyKey(client, db string) string {
	svc := hc.cl.p.Model.Services[client]
	// compose-go folds links into DependsOn: a link is the key written.
	if slices.Contains(slices.Collect(maps.Values(compose.LinkAliases(svc))), db) {
		return "links"
	}
	return "depends_on"
}

// connKeyRE matches variable names that usually hold a database
// connection (DATABASE_URL, DB_HOST, PGHOST, SPRING_DATASOURCE_URL,
// POSTGRES_DSN, AIRFLOW__DATABASE__SQL_ALCHEMY_CONN).
var connKeyRE = regexp.MustCompile(`(?i)(^|_)(DATABASE|DB|PG[A-Z]*|POSTGRES(QL)?|JDBC|DSN|DATASOURCE|SQL_ALCHEMY_CONN)(_|$)`)

// connValueRE matches the names that hold where to connect (a URL, a
// DSN, a host), not a setting beside it: POSTGRESQL_DB_CREATE (Zammad's
// flag), DB_USER or POSTGRES_PASSWORD name a database but hold no address.
var connValueRE = regexp.MustCompile(`(?i)(^|_)(URL|URI|DSN|HOST|HOSTNAME|SERVER|SERVERS|ADDR|ADDRESS|CONN|CONNECTION|CONNECTION_STRING|CONNSTR|SEEDS|DATASOURCE|DATABASE)$`)

// warnUnsetPassthrough reports a pass-through variable ("- DATABASE_URL",
// no value) that holds a connection name but is set nowhere the tool can
// see: compose takes it from the shell that runs it. It reports whether
// it warned.
func (cl *collector) warnUnsetPassthrough(v compose.EnvVar) bool {
	dbs := cl.dbs
	if !v.Passthrough || strings.TrimSpace(v.Value) != "" || !connKeyRE.MatchString(v.Key) || !connValueRE.MatchString(v.Key) || len(dbs) == 0 || hostvar.IsLibpqSetting(v.Key) {
		return false
	}
	target := "a PostgreSQL service of this project"
	if len(dbs) == 1 {
		target = dbs[0].Name
	}
	written := "- " + v.Key
	if v.Prefix == "" {
		written = v.Key + ":"
	}
	cl.note("UDS111", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s is passed through from the environment docker compose runs in (\"%s\" with no value) and is set neither in the project files nor in .env, so the tool cannot see or edit it; if it connects to %s, set it in socket form where it is set (mount path %s), and add the socket volume to %s by hand", v.Service, v.Key, written, target, cl.opts.MountPath, v.Service))
	return true
}

// catalogueHint says, for a client whose catalogued image reads its host
// from a variable the service leaves unset (the image then connects to its
// own default), which variable to set to the socket directory, or why the
// image takes no socket there. It is "" for an image the catalogue does
// not know.
func (hc hiddenClients) catalogueHint(service string, dep *DB) string {
	cl := hc.cl
	db := dep.Name
	e := catalog.Lookup(cl.p.Model.Services[service].Image)
	if e == nil {
		return ""
	}
	for i := range e.Vars {
		v := e.Vars[i].In(func(k string) string { return cl.p.clientEnv(service, k) })
		if (v.Role != catalog.RoleHost && v.Role != catalog.RoleURL) || cl.p.clientEnv(service, v.Key) != "" || (hiddenClients{cl}).anySet(service, v.Unless) {
			continue
		}
		b := hostvar.CatalogueBasis(e, v.Reason)
		if v.Role == catalog.RoleURL {
			// The image's default URL (Plausible's DATABASE_URL): the
			// catalogue says which socket form, if any, its reader takes,
			// so the generic libpq advice would be wrong here.
			if !v.Directory {
				return fmt.Sprintf("the image reads its connection URL from %s, which is unset here (the image then uses its own default), and no socket form of that URL reaches the server: %s (%s)", v.Key, v.Reason, b.Citation())
			}
			return fmt.Sprintf("the image reads its connection URL from %s, which is unset here (the image then uses its own default); set %s in the socket form its reader takes (%s; %s) and mount %s's socket volume", v.Key, v.Key, v.Reason, b.Citation(), db)
		}
		if !v.Directory {
			return fmt.Sprintf("the image reads its host from %s, which is unset here, and %s takes no socket directory: %s (%s)", v.Key, v.Key, v.Reason, b.Citation())
		}
		port := ""
		if v.Port != "" && dep.Port != 5432 {
			if p, _ := atoiPort(cl.p.clientEnv(service, v.Port)); p != dep.Port {
				// The socket file is named after the port the image
				// passes, its default 5432 when the variable is unset.
				port = fmt.Sprintf(", set %s=%d (%s listens on %d)", v.Port, dep.Port, db, dep.Port)
			}
		}
		why := b.Citation()
		if v.Reason != "" {
			// when the image reads it (synapse: only when it renders
			// its configuration from the environment)
			why = v.Reason + "; " + why
		}
		return fmt.Sprintf("the image reads its host from %s, which is unset here (the image then uses its own default); set %s=%s, which it hands to a driver that takes a socket directory%s, and mount %s's socket volume (%s)", v.Key, v.Key, cl.opts.MountPath, port, db, why)
	}
	return ""
}

// anySet reports whether the service sets any of keys.
func (hc hiddenClients) anySet(service string, keys []string) bool {
	cl := hc.cl
	for _, k := range keys {
		if cl.p.clientEnv(service, k) != "" {
			return true
		}
	}
	return false
}
