package rewrite

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/yamledit"
)

// socketFileRE matches PostgreSQL's socket file name, .s.PGSQL.<port>.
var socketFileRE = regexp.MustCompile(`^\.s\.PGSQL\.(\d+)$`)

// Validate checks a compose project that already uses Unix sockets (migrated
// by this tool or by hand) and returns one finding per mistake that would
// stop a client from connecting or the server from creating its socket.
// Errors are SevError; risks (a host bind mount) are SevWarning. The error
// return is for input that cannot be read as a compose project.
func Validate(ctx context.Context, inputs []Input, opts Options) ([]Finding, error) {
	p, err := load(ctx, inputs, opts)
	if err != nil {
		return nil, scrubErr(err, inputSecrets(inputs))
	}
	return validateLoaded(p, opts), nil
}

// validateLoaded runs the checks on a loaded project.
func validateLoaded(p *project, opts Options) []Finding {
	v := &validator{p: p, opts: opts}
	v.run()
	sortFindings(p.sources, v.findings)
	scrubFindings(v.findings, p.secrets())
	return v.findings
}

type validator struct {
	p        *project
	opts     Options
	findings findingList
	dbMount  map[string]*dbService // socket volume source → db
}

func (v *validator) run() {
	a, err := analyze(v.p, v.opts)
	v.findings = append(v.findings, v.p.badConnFindings()...)
	if err != nil {
		return
	}
	dbs := a.dbs
	v.dbMount = map[string]*dbService{}
	isDB := map[string]bool{}
	for _, db := range dbs {
		isDB[db.name] = true
		if msg := initSocketProblem(db); msg != "" {
			s, kn := v.p.settingsNode(db.name)
			v.findings.add("UDS132", yamledit.NodePos(s, kn), db.name, "command", msg)
		}
		for _, m := range v.p.serviceMounts(db.name) {
			if !db.listensIn(m.target) || m.source == "" {
				continue
			}
			db.socketDir = m.target
			key := v.sourceKey(m)
			n := yamledit.Deref(m.node)
			if other, ok := v.dbMount[key]; ok {
				v.findings.add("UDS210", yamledit.NodePos(m.src, n), db.name, "volumes",
					fmt.Sprintf("%s and %s share the socket volume %s: both servers would create .s.PGSQL.<port> in one directory; give each its own volume", other.name, db.name, m.source))
			}
			db.existing, db.volume, db.bind = &m, m.source, m.bind
			v.dbMount[key] = db
			if m.readOnly {
				v.findings.add("UDS208", yamledit.NodePos(m.src, n), db.name, "volumes",
					fmt.Sprintf("%s mounts its socket directory %s read-only: Postgres cannot create its socket (\"Read-only file system\"); drop :ro", db.name, db.socketDir))
			}
			if m.bind {
				v.findings.add("UDS209", yamledit.NodePos(m.src, n), db.name, "volumes",
					fmt.Sprintf("the socket directory %s is a host bind mount (%s): root-owned, so Postgres may fail to create its lock file (rootless Docker, user:), and Docker Desktop on macOS cannot pass sockets through it; use a named volume", db.socketDir, m.source))
			}
		}
	}
	for _, name := range v.p.serviceOrder() {
		ms := v.p.serviceMounts(name)
		for _, m := range ms {
			if socketFileRE.MatchString(path.Base(m.target)) || socketFileRE.MatchString(path.Base(m.source)) {
				n := yamledit.Deref(m.node)
				v.findings.add("UDS212", yamledit.NodePos(m.src, n), name, "volumes",
					"the socket file is mounted instead of its directory: the mount goes stale when Postgres restarts (\"Connection refused\"); mount the directory")
			}
		}
		targets := map[string]string{}
		for _, m := range ms {
			if other, ok := targets[m.target]; ok && m.source != "" && other != m.source {
				n := yamledit.Deref(m.node)
				v.findings.add("UDS214", yamledit.NodePos(m.src, n), name, "volumes",
					fmt.Sprintf("%s mounts both %s and %s at %s: one path holds one volume (compose keeps the last), so a client of two databases needs two directories", name, other, m.source, m.target))
			}
			if m.source != "" {
				targets[m.target] = m.source
			}
		}
		if isDB[name] {
			for _, ent := range v.p.serviceEnv(name) {
				if contains(serverClientVars, ent.key) {
					v.findings.add("UDS133", ent.pos, name, ent.key, serverEnvProblem(name, ent.key))
				}
			}
			continue
		}
		for _, ent := range v.p.serviceEnv(name) {
			v.checkValue(name, ent, ms)
		}
		v.checkPGSSLMode(name)
	}
}

// sourceKey identifies a mount source: a volume name, or a bind path
// resolved against the project directory.
func (v *validator) sourceKey(m mountRef) string {
	if !m.bind {
		return "volume:" + m.source
	}
	s := m.source
	if !path.IsAbs(s) {
		s = path.Join(filepath.ToSlash(filepath.Dir(m.src.Path)), s)
	}
	return "bind:" + path.Clean(s)
}

// checkValue checks one environment value that uses a Unix socket.
func (v *validator) checkValue(service string, ent envVar, ms []mountRef) {
	raw := ent.raw
	at := func(code, msg string) {
		v.findings.add(code, ent.pos, service, ent.key, msg)
	}
	if fixFactoryArg(raw) != raw {
		at("UDS201",
			"$FactoryArg is written with one $: compose interpolates it to an empty string and pgjdbc fails with NoSuchMethodException; write $$FactoryArg")
		raw = fixFactoryArg(raw)
	}
	val, err := v.p.interpolate(raw)
	if err != nil {
		return
	}
	if v.checkHostShape(at, service, ent.key, val, ms) {
		return
	}
	if _, _, _, socket := socketRepair(ent.key, val); socket || npgsqlSSLProblem(val) {
		checkSSLMode(at, service, ent.key, val)
	}
	sockFile := v.socketFile(at, service, ent.key, val)
	if sockFile == "" {
		return
	}
	v.checkSocketPath(at, service+"/"+ent.key, sockFile, ms)
}

// libpqSocket returns the socket file a libpq host directory and port name,
// or "" after reporting a host that names the file itself.
func (v *validator) libpqSocket(at func(code, msg string), dir, port string) string {
	if socketFileRE.MatchString(path.Base(dir)) {
		at("UDS204",
			fmt.Sprintf("host must name the socket directory (%s), not the socket file: libpq fails with \"not a directory\"", path.Dir(dir)))
		return ""
	}
	if port == "" {
		port = "5432"
	}
	return path.Join(dir, ".s.PGSQL."+port)
}

// checkSocketPath follows a client's socket file to the mount that holds it
// and to the database that mounts the same volume at its socket directory.
// A bind mount of a host directory that no service of the project serves
// holds a foreign socket (the host's own PostgreSQL): a warning, UDS134.
// what is "service/key".
func (v *validator) checkSocketPath(at func(code, msg string), what, sockFile string, ms []mountRef) {
	service, _, _ := strings.Cut(what, "/")
	dir := path.Dir(sockFile)
	var hold *mountRef
	for i, m := range ms {
		if m.source != "" && (dir == m.target || strings.HasPrefix(dir, m.target+"/")) {
			hold = &ms[i]
		}
	}
	if hold == nil {
		at("UDS205",
			fmt.Sprintf("%s mounts nothing at %s: mount the database's socket volume there (read-only is enough)", service, dir))
		return
	}
	db, ok := v.dbMount[v.sourceKey(*hold)]
	if !ok && hold.bind && dir == hold.target {
		at("UDS162", foreignSocketMsg(what, hold.source, dir))
		return
	}
	if !ok || dir != hold.target {
		at("UDS206",
			fmt.Sprintf("%s is not a database's socket directory: no PostgreSQL service mounts %s at its socket directory", dir, hold.source))
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
func (pl *planner) warnForeignSocket(v envVar, dialect string, dbs []*dbService) {
	sp := socketPathOf(v.value, dialect)
	if dialect == DialectJDBC {
		sp = path.Dir(sp)
	}
	if !path.IsAbs(sp) {
		return
	}
	for _, m := range pl.p.serviceMounts(v.service) {
		if !m.bind || m.target != path.Clean(sp) {
			continue
		}
		for _, db := range dbs {
			if db.existing != nil && db.existing.bind && db.existing.source == m.source {
				return
			}
		}
		pl.findings.add("UDS162", v.pos, v.service, v.key, foreignSocketMsg(v.service+"/"+v.key, m.source, m.target))
	}
}
