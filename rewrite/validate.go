package rewrite

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/yamledit"
	"gopkg.in/yaml.v3"
)

// Validate checks a compose project that already uses Unix sockets (migrated
// by this tool or by hand) and returns one finding per mistake that would
// stop a client from connecting or the server from creating its socket.
// Errors are SevError; risks (a host bind mount) are SevWarning. The error
// return is for input that cannot be read as a compose project.
func Validate(ctx context.Context, inputs []Input, opts Options) ([]Finding, error) {
	p, err := load(ctx, inputs, opts)
	if err != nil {
		return nil, ScrubErr(err, compose.InputSecrets(inputs))
	}
	return validateLoaded(p, opts), nil
}

// validateLoaded runs the checks on a loaded project.
func validateLoaded(p *project, opts Options) []Finding {
	v := &validator{p: p, opts: opts}
	v.run()
	sortFindings(p.Sources, v.findings)
	compose.ScrubFindings(v.findings, p.Secrets())
	return v.findings
}

type validator struct {
	p        *project
	opts     Options
	findings finding.List
	dbMount  map[string]*dbService // socket volume source → db
	cl       *collector            // for what a service reads (reads)
}

// reads returns the collector over the validated project's analysis (set
// by runOn), for the questions validate shares with migrate: which
// variables a service reads, which configuration files reach its clients.
func (v *validator) reads() *collector {
	if v.cl == nil {
		v.cl = newCollector(v.p, v.opts, analysis{})
	}
	return v.cl
}

func (v *validator) run() {
	a, err := analyze(v.p, v.opts)
	v.findings = append(v.findings, v.p.badConnFindings(v.opts)...)
	if err != nil {
		return
	}
	v.runOn(a)
}

// runOn checks the project over its analysis a, which it only reads.
func (v *validator) runOn(a analysis) {
	v.cl = newCollector(v.p, v.opts, a)
	dbs := a.dbs
	v.dbMount = map[string]*dbService{}
	isDB := map[string]bool{}
	for _, db := range dbs {
		isDB[db.name] = true
		if msg := initSocketProblem(db); msg != "" {
			s, kn := v.p.settingsNode(db.name)
			v.findings.Add("UDS132", yamledit.NodePos(s, kn), db.name, "command", msg)
		}
		for _, m := range db.sockMounts {
			key := v.sourceKey(m)
			n := yamledit.Deref(m.Node)
			if other, ok := v.dbMount[key]; ok {
				v.findings.Add("UDS210", yamledit.NodePos(m.Src, n), db.name, "volumes",
					fmt.Sprintf("%s and %s share the socket volume %s: both servers would create .s.PGSQL.<port> in one directory; give each its own volume", other.name, db.name, m.Source))
			}
			v.dbMount[key] = db
			v.checkTmpfsOverSocket(db, m.Target)
			if m.ReadOnly {
				fix := "drop :ro"
				if n.Kind == yaml.MappingNode {
					fix = "remove read_only: true"
				}
				v.findings.Add("UDS208", yamledit.NodePos(m.Src, n), db.name, "volumes",
					fmt.Sprintf("%s mounts its socket directory %s read-only: Postgres cannot create its socket (\"Read-only file system\"); %s", db.name, m.Target, fix))
			}
			if m.Bind {
				v.findings.Add("UDS209", yamledit.NodePos(m.Src, n), db.name, "volumes",
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
				if contains(serverClientVars, ent.Key) {
					v.findings.Add("UDS133", ent.Pos, name, ent.Key, serverEnvProblem(name, ent.Key))
				}
			}
			continue
		}
		for _, ent := range v.p.ServiceEnv(name) {
			if _, ignores := (inheritedVars{v.reads()}).ignores(name, ent.Key); ignores {
				continue
			}
			v.checkValue(name, ent, ms)
			for _, leaf := range envDocLeaves(ent) {
				v.checkValue(name, leaf, ms)
			}
		}
		v.checkPGSSLMode(name)
	}
	v.checkConfigFiles()
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
	v.checkPlainValue(at, service, ent.Key, val, ms)
}

// valueAt returns the report function of the checks of one value, at pos:
// each message opens with the value's service/key, as the text, gcc and
// SARIF outputs carry no fields of their own to name it (trial 5 D8), unless
// it opens with them already ("app/DB_HOST names the socket file ...").
func (v *validator) valueAt(pos Pos, service, key string) func(code, msg string) {
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
	if _, _, _, socket := dialect.SocketRepair(key, isHostVar(key), val); socket || dialect.NpgsqlSSLProblem(val) {
		checkSSLMode(at, service, key, val)
	}
	sockFile := dialect.CheckSocket(checker{v: v, service: service, at: at}, key, val)
	if sockFile == "" {
		return
	}
	v.checkSocketPath(at, service+"/"+key, sockFile, ms)
}

// checkSocketPath follows a client's socket file to the mount that holds it
// and to the database that mounts the same volume at its socket directory.
// A bind mount of a host directory that no service of the project serves
// holds a foreign socket (the host's own PostgreSQL): a warning, UDS134.
// what is "service/key".
func (v *validator) checkSocketPath(at func(code, msg string), what, sockFile string, ms []compose.Mount) {
	service, _, _ := strings.Cut(what, "/")
	dir := path.Dir(sockFile)
	var hold *compose.Mount
	for i, m := range ms {
		if m.Source != "" && (dir == m.Target || strings.HasPrefix(dir, m.Target+"/")) {
			hold = &ms[i]
		}
	}
	if hold == nil {
		at("UDS205",
			fmt.Sprintf("%s mounts nothing at %s: mount the database's socket volume there (read-only is enough)", service, dir))
		return
	}
	db, ok := v.dbMount[v.sourceKey(*hold)]
	if !ok && hold.Bind && dir == hold.Target {
		at("UDS162", foreignSocketMsg(what, hold.Source, dir))
		return
	}
	if !ok || dir != hold.Target {
		at("UDS206",
			fmt.Sprintf("%s is not a database's socket directory: no PostgreSQL service mounts %s at its socket directory", dir, hold.Source))
		return
	}
	want := ".s.PGSQL." + strconv.Itoa(db.port)
	// An image the tool does not know (a pooler) names its socket after a
	// port only the client shows: nothing to compare against.
	if path.Base(sockFile) != want && db.portSet {
		at("UDS207",
			fmt.Sprintf("%s listens on port %d, so its socket is %s/%s, not %s", db.name, db.port, dir, want, sockFile))
	}
}

func foreignSocketMsg(what, source, dir string) string {
	return fmt.Sprintf("%s uses the socket in %s, the host directory %s bind-mounted, which no PostgreSQL service of this project serves (a server outside the project, such as the host's): left as it is", what, dir, source)
}

// warnForeignSocket warns (UDS134) about a socket-form value whose directory
// is a client's bind mount of a host directory that no database of the
// project mounts: a server outside the project, left as it is.
func (cl *collector) warnForeignSocket(v compose.EnvVar, dname string) {
	dbs := cl.dbs
	sp := dialect.SocketDirOf(v.Value, dname)
	if !path.IsAbs(sp) {
		return
	}
	for _, m := range cl.p.ServiceMounts(v.Service) {
		if !m.Bind || m.Target != path.Clean(sp) {
			continue
		}
		for _, db := range dbs {
			// The mount that carries db's socket is its last socket mount.
			if n := len(db.sockMounts); n > 0 && db.sockMounts[n-1].Bind && db.sockMounts[n-1].Source == m.Source {
				return
			}
		}
		cl.note("UDS162", v.Pos, v.Service, v.Key, foreignSocketMsg(v.Service+"/"+v.Key, m.Source, m.Target))
	}
}

// checker is what a dialect's check of one value of service asks of the
// validator (dialect.Checker).
type checker struct {
	v       *validator
	service string
	at      func(code, msg string)
}

func (c checker) Env(key string) string {
	for _, o := range c.v.p.ServiceEnv(c.service) {
		if o.Key == key {
			return o.Value
		}
	}
	return ""
}

func (c checker) Report(code, msg string) { c.at(code, msg) }
