// Package validate checks a compose project that already uses Unix
// sockets, migrated by this tool or by hand, and reports each mistake that
// would stop a client from connecting or the server from creating its
// socket (the UDS2xx codes): mounts, ports, shared volumes, read-only and
// bind mounts, PGSSLMODE, and the shape of each socket value through its
// dialect. It reads the analysis' databases and edits nothing. Migrate
// and revert check their own output with it (Loaded, NewErrors), and
// return Error when the output fails.
package validate

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/libpq"
	"github.com/uds-migrate/uds-migrate/pgserver"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// Validate checks a compose project that already uses Unix sockets (migrated
// by this tool or by hand) and returns one finding per mistake that would
// stop a client from connecting or the server from creating its socket.
// Errors are SevError; risks (a host bind mount) are SevWarning. The error
// return is for input that cannot be read as a compose project.
func Validate(ctx context.Context, inputs []compose.Input, opts analyze.Options) ([]finding.Finding, error) {
	p, err := analyze.Load(ctx, inputs, opts)
	if err != nil {
		return nil, ScrubErr(err, compose.InputSecrets(inputs))
	}
	return Loaded(p, opts), nil
}

// Loaded runs the checks on a loaded project: Validate without the load,
// for a run's own output (migrate's and revert's verification).
func Loaded(p *analyze.Project, opts analyze.Options) []finding.Finding {
	v := &validator{p: p, opts: opts}
	v.run()
	analyze.SortFindings(p.Sources, v.findings)
	compose.ScrubFindings(v.findings, p.Secrets())
	return v.findings
}

// Check runs the checks over an analysis of p, which it only reads, and
// returns their findings in the order they were made.
func Check(p *analyze.Project, opts analyze.Options, top analyze.Topology) []finding.Finding {
	v := &validator{p: p, opts: opts}
	v.runOn(top)
	return v.findings
}

type validator struct {
	p        *analyze.Project
	opts     analyze.Options
	findings finding.List
	dbMount  map[string]*analyze.DB // socket volume source → db
	dbs      map[string]bool        // the database services' names
	r        *analyze.Reads         // what a service reads (reads)
}

// reads returns the answers over the validated project's analysis (set
// by runOn), for the questions validate shares with migrate: which
// variables a service reads, which configuration files reach its clients.
func (v *validator) reads() *analyze.Reads {
	if v.r == nil {
		r := analyze.NewReads(v.p, v.opts, analyze.Topology{})
		v.r = &r
	}
	return v.r
}

func (v *validator) run() {
	a, err := analyze.Databases(v.p, v.opts)
	v.findings = append(v.findings, v.p.BadConnFindings(v.opts)...)
	if err != nil {
		return
	}
	v.runOn(a)
}

// runOn checks the project over its analysis a, which it only reads.
func (v *validator) runOn(a analyze.Topology) {
	r := analyze.NewReads(v.p, v.opts, a)
	v.r = &r
	dbs := a.DBs
	v.dbMount = map[string]*analyze.DB{}
	isDB := map[string]bool{}
	v.dbs = isDB
	for _, db := range dbs {
		isDB[db.Name] = true
		if msg := analyze.InitSocketProblem(db); msg != "" {
			s, kn := v.p.SettingsNode(db.Name)
			v.findings.Add("UDS132", yamledit.NodePos(s, kn), db.Name, "command", msg)
		}
		for _, m := range db.SocketMounts {
			key := v.sourceKey(m)
			n := yamledit.Deref(m.Node)
			if other, ok := v.dbMount[key]; ok {
				v.findings.Add("UDS210", yamledit.NodePos(m.Src, n), db.Name, "volumes",
					fmt.Sprintf("%s and %s share the socket volume %s: both servers would create .s.PGSQL.<port> in one directory; give each its own volume", other.Name, db.Name, m.Source))
			}
			v.dbMount[key] = db
			v.checkTmpfsOverSocket(db, m.Target)
			if m.ReadOnly {
				fix := "drop :ro"
				if n.Kind == yaml.MappingNode {
					fix = "remove read_only: true"
				}
				v.findings.Add("UDS208", yamledit.NodePos(m.Src, n), db.Name, "volumes",
					fmt.Sprintf("%s mounts its socket directory %s read-only: Postgres cannot create its socket (\"Read-only file system\"); %s", db.Name, m.Target, fix))
			}
			if m.Bind {
				v.findings.Add("UDS209", yamledit.NodePos(m.Src, n), db.Name, "volumes",
					fmt.Sprintf("the socket directory %s is a host bind mount (%s): root-owned, so Postgres may fail to create its lock file (rootless Docker, user:), and Docker Desktop on macOS cannot pass sockets through it; use a named volume", m.Target, m.Source))
			}
		}
	}
	for _, name := range v.p.ServiceOrder() {
		ms := v.p.ServiceMounts(name)
		for _, m := range ms {
			if dialect.SocketFileRE.MatchString(path.Base(m.Target)) || dialect.SocketFileRE.MatchString(path.Base(m.Source)) {
				n := yamledit.Deref(m.Node)
				v.findings.Add("UDS212", yamledit.NodePos(m.Src, n), name, "volumes",
					"the socket file is mounted instead of its directory: the mount goes stale when Postgres restarts (\"Connection refused\"); mount the directory")
			}
		}
		targets := map[string]string{}
		for _, m := range ms {
			if other, ok := targets[m.Target]; ok && m.Source != "" && other != m.Source {
				n := yamledit.Deref(m.Node)
				v.findings.Add("UDS214", yamledit.NodePos(m.Src, n), name, "volumes",
					fmt.Sprintf("%s mounts both %s and %s at %s: one path holds one volume (compose keeps the last), so a client of two databases needs two directories", name, other, m.Source, m.Target))
			}
			if m.Source != "" {
				targets[m.Target] = m.Source
			}
		}
		if isDB[name] {
			for _, ent := range v.p.ServiceEnv(name) {
				if msg := pgserver.ClientVarProblem(name, ent.Key); msg != "" {
					v.findings.Add("UDS133", ent.Pos, name, ent.Key, msg)
				}
			}
			continue
		}
		for _, ent := range v.p.ServiceEnv(name) {
			if v.reads().Ignores(name, ent.Key) {
				continue
			}
			v.checkValue(name, ent, ms)
			for _, leaf := range analyze.EnvDocLeaves(ent) {
				v.checkValue(name, leaf, ms)
			}
		}
		v.checkPGSSLMode(name)
	}
	v.checkConfigFiles()
	v.checkCatalogueFiles()
	v.checkIdleMounts()
}

// sourceKey identifies a mount source: a volume name, or a bind path
// resolved against the project directory.
func (v *validator) sourceKey(m compose.Mount) string {
	if !m.Bind {
		return "volume:" + m.Source
	}
	s := m.Source
	if !path.IsAbs(s) {
		s = path.Join(filepath.ToSlash(filepath.Dir(m.Src.Path)), s)
	}
	return "bind:" + path.Clean(s)
}

// checkValue checks one environment value that uses a Unix socket.
func (v *validator) checkValue(service string, ent compose.EnvVar, ms []compose.Mount) {
	raw := ent.Raw
	at := v.valueAt(ent.Pos, service, ent.Key)
	if fixed, _, how := dialect.RepairOf(raw); fixed != raw {
		at("UDS201", how.What+" is written with one $: "+how.Why+"; write "+how.Fix)
		raw = fixed
	}
	val, err := v.p.Interpolate(raw)
	if err != nil {
		return
	}
	if v.checkFileHost(at, service, ent, val, ms) {
		return
	}
	v.checkPlainValue(at, service, ent.Key, val, ms)
}

// checkFileHost checks a socket-form URI whose ?host= names the socket
// file by what its reader takes (analyze.FileHost): for a reader that
// dials ?host= as given (bun's pgdriver) the file is right, so only its
// path and sslmode are checked; for one no source of knowledge shows, the
// file may be right or wrong (UDS138, a warning). A reader that takes the
// directory gets the ordinary checks (UDS204). It reports whether it
// checked the value.
func (v *validator) checkFileHost(at func(code, msg string), service string, ent compose.EnvVar, val string, ms []compose.Mount) bool {
	fh, ok := v.reads().FileHost(ent, val)
	switch {
	case !ok || (fh.Basis != nil && !fh.TakesFile):
		return false
	case fh.Basis == nil:
		at("UDS138", fmt.Sprintf("%s/%s names the socket file %s in ?host=, and no code, manifest or catalogue entry shows its reader: libpq and the drivers modelled on it take the directory (%s) and fail on the file (\"Not a directory\"), bun's pgdriver needs the file; name the reader with --consumer %s/%s=READER to have it checked",
			service, ent.Key, fh.File, path.Dir(fh.File), service, ent.Key))
	default:
		if fixed, err := libpq.WithSocketFile(val); err == nil && fixed != val {
			at("UDS216", fmt.Sprintf("%s/%s: over a Unix socket sslmode must be disable: %s asks for TLS with any other sslmode (or none) and fails (\"SSL is not enabled on the server\")", service, ent.Key, fh.Basis.Name))
		}
	}
	v.checkSocketPath(at, service+"/"+ent.Key, fh.File, ms)
	return true
}

// valueAt returns the report function of the checks of one value, at pos:
// each message opens with the value's service/key, as the text, gcc and
// SARIF outputs carry no fields of their own to name it (trial 5 D8), unless
// it opens with them already ("app/DB_HOST names the socket file ...").
func (v *validator) valueAt(pos finding.Pos, service, key string) func(code, msg string) {
	name := service + "/" + key
	return func(code, msg string) {
		if !strings.HasPrefix(msg, name) {
			msg = name + ": " + msg
		}
		v.findings.Add(code, pos, service, key, msg)
	}
}

// checkPlainValue checks a value as its reader gets it (interpolated, or
// from a file nothing interpolates) through at.
func (v *validator) checkPlainValue(at func(code, msg string), service, key, val string, ms []compose.Mount) {
	if v.checkCatalogued(at, service, key, val, ms) || v.checkHostShape(at, service, key, val, ms) {
		return
	}
	if _, _, _, socket := dialect.SocketRepair(key, hostvar.IsHostKey(key), val); socket || dialect.NpgsqlSSLProblem(val) {
		checkSSLMode(at, service, key, val)
	}
	sockFile := dialect.CheckSocket(checker{v: v, service: service, at: at}, key, val)
	if sockFile == "" {
		v.checkHostDir(at, service, key, val, ms)
		return
	}
	v.checkSocketPath(at, service+"/"+key, sockFile, ms)
}

// checkHostDir checks an application host variable that holds a socket
// directory (DB_HOST=/var/run/postgresql, or DB_SERVICE where the project
// shows it is Django's HOST) as migrate judges such a variable
// (Reads.TakesDir): the directory must be a mount of a database's socket
// volume. The port beside it (DB_PORT), when set, names the socket file;
// otherwise the port is not compared. PGHOST and connection-value forms
// are checked by their dialects.
func (v *validator) checkHostDir(at func(code, msg string), service, key, val string, ms []compose.Mount) {
	val = strings.TrimSpace(val)
	if key == "PGHOST" || !strings.HasPrefix(val, "/") || strings.ContainsAny(val, ":, ") || dialect.Recognise(val) != nil || dialect.SocketFileRE.MatchString(path.Base(val)) {
		return // not a plain directory (DIR:port is the catalogue's to check)
	}
	svc := v.p.Model.Services[service]
	if catalog.LookupServer(svc.Image) != nil && svc.Build == nil {
		// a PostgreSQL server's own setting (supabase/postgres'
		// POSTGRES_HOST: /var/run/postgresql in supabase/realtime's
		// compose.dbs.yml), also where the catalogue's no: keeps it
		// from being a database of the run: no client value
		return
	}
	if e, cv := hostvar.CatalogueVar(v.p.Project, service, key); cv != nil || e != nil && e.NotAClient && svc.Build == nil {
		// an image that reads no connection variable (redis inheriting a
		// shared DB_HOST), or one whose catalogue entry judges the key
		return
	}
	if !v.reads().TakesDir(service, key) {
		return
	}
	dir := path.Clean(val)
	port := ""
	if pk := hostvar.PortSibling(key); pk != "" {
		if p, ok := pgserver.ParsePort(compose.EnvLookup(v.p.ServiceEnv(service), pk)); ok {
			port = strconv.Itoa(p)
		}
	}
	if port == "" {
		v.checkSocketDir(at, service+"/"+key, dir, ms)
		return
	}
	v.checkSocketPath(at, service+"/"+key, dir+"/.s.PGSQL."+port, ms)
}

// checkSocketPath follows a client's socket file to the mount that holds it
// and to the database that mounts the same volume at its socket directory.
// A bind mount of a host directory that no service of the project serves
// holds a foreign socket (the host's own PostgreSQL): a warning, UDS134.
// what is "service/key".
func (v *validator) checkSocketPath(at func(code, msg string), what, sockFile string, ms []compose.Mount) {
	db := v.checkSocketDir(at, what, path.Dir(sockFile), ms)
	want := ""
	if db != nil {
		want = ".s.PGSQL." + strconv.Itoa(db.Port)
	}
	// An image the tool does not know (a pooler) names its socket after a
	// port only the client shows: nothing to compare against.
	if db != nil && path.Base(sockFile) != want && db.PortSet {
		at("UDS207",
			fmt.Sprintf("%s listens on port %d, so its socket is %s/%s, not %s", db.Name, db.Port, path.Dir(sockFile), want, sockFile))
	}
}

// checkSocketDir follows a client's socket directory to the mount that
// holds it and returns the database that mounts the same volume there at
// its socket directory, nil after reporting why there is none. what is
// "service/key".
func (v *validator) checkSocketDir(at func(code, msg string), what, dir string, ms []compose.Mount) *analyze.DB {
	service, _, _ := strings.Cut(what, "/")
	var hold *compose.Mount
	for i, m := range ms {
		if m.Source != "" && (dir == m.Target || strings.HasPrefix(dir, m.Target+"/")) {
			hold = &ms[i]
		}
	}
	if hold == nil {
		at("UDS205",
			fmt.Sprintf("%s mounts nothing at %s: mount the database's socket volume there (read-only is enough)", service, dir))
		return nil
	}
	db, ok := v.dbMount[v.sourceKey(*hold)]
	if !ok && hold.Bind && dir == hold.Target {
		at("UDS162", analyze.ForeignSocketMsg(what, hold.Source, dir))
		return nil
	}
	if !ok || dir != hold.Target {
		at("UDS206",
			fmt.Sprintf("%s is not a database's socket directory: no PostgreSQL service mounts %s at its socket directory", dir, hold.Source))
		return nil
	}
	return db
}

// checker is what a dialect's check of one value of service asks of the
// validator (dialect.Checker).
type checker struct {
	v       *validator
	service string
	at      func(code, msg string)
}

func (c checker) Env(key string) string {
	return compose.EnvLookup(c.v.p.ServiceEnv(c.service), key)
}

func (c checker) Report(code, msg string) { c.at(code, msg) }
