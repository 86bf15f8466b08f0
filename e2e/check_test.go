package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/internal/probe"
)

// noSuchFactoryCtor is pgjdbc's complaint when socketFactory names
// AFUNIXSocketFactory itself, which has no no-argument constructor: what an
// app gets when compose interpolated `$FactoryArg` away (FACTS.md).
const noSuchFactoryCtor = "NoSuchMethodException: org.newsclub.net.unix.AFUNIXSocketFactory.<init>()"

// outcome is what checking one archive found.
type outcome struct {
	// skip, when set, says why there is nothing to prove.
	skip string
	// problems are failed checks, each naming the service and value.
	problems []string
	// notes are for the test log: what was probed and how.
	notes []string
}

func (o *outcome) problem(format string, args ...any) {
	o.problems = append(o.problems, fmt.Sprintf(format, args...))
}

func (o *outcome) note(format string, args ...any) {
	o.notes = append(o.notes, fmt.Sprintf(format, args...))
}

// attempt is one connection to make and what it must show.
type attempt struct {
	edge     edge
	driver   string // "pgx", "psql" or "jdbc"
	conn     string // the connection string with the socket directory mapped
	negative bool   // must fail with noSuchFactoryCtor (or wantErr)
	wantErr  string // the failure a negative attempt must show, when not noSuchFactoryCtor
}

// checkArchive extracts ar in its expected state, finds every socket-form
// connection string in it and proves each with the real driver against srv.
// jdbcErr is probe.JDBCAvailable()'s verdict: when non-nil, every JDBC edge
// is a problem (TestGoldens skips such archives first unless JDBC is
// required).
func checkArchive(ctx context.Context, srv *pgtest.Server, ar *txtar.Archive, jdbcErr error) (out outcome) {
	work, err := os.MkdirTemp("", "e2e")
	if err != nil {
		out.problem("%v", err)
		return out
	}
	defer os.RemoveAll(work)

	projects, err := extract(ar, filepath.Join(work, "p"), nil)
	if err != nil {
		out.problem("extracting: %v", err)
		return out
	}
	if len(projects) == 0 {
		out.skip = "no want/compose.yml: the tool is not expected to produce a compose file here"
		return out
	}
	if err := replaySymlinks(ar, filepath.Join(work, "p")); err != nil {
		out.problem("symbolic links of the script: %v", err)
		return out
	}
	// An archive may hold several projects (several FILE arguments, or a
	// project in a subdirectory), and a project several combinations of
	// compose files (the base alone, with each override): prove each; skip
	// only when none has a value to prove.
	var skips []string
	runs := 0
	for _, sub := range projects {
		sets := fileSets(filepath.Join(work, "p", sub))
		for _, files := range sets {
			runs++
			var one outcome
			checkProject(ctx, srv, ar, work, sub, files, jdbcErr, &one)
			label := sub
			if len(sets) > 1 {
				label = sub + " [" + strings.Join(files, " + ") + "]"
				for i, p := range one.problems {
					one.problems[i] = p + " [" + strings.Join(files, " + ") + "]"
				}
				for i, n := range one.notes {
					one.notes[i] = n + " [" + strings.Join(files, " + ") + "]"
				}
			}
			out.problems = append(out.problems, one.problems...)
			out.notes = append(out.notes, one.notes...)
			if one.skip != "" {
				skips = append(skips, label+": "+one.skip)
			}
		}
	}
	if len(skips) == runs {
		out.skip = strings.Join(skips, "; ")
	}
	return out
}

// replaySymlinks creates the symbolic links that the archive's script makes
// before it runs the tool (`symlink NAME -> TARGET`, after `cd DIR`), so
// that the project is loaded as the tool saw it.
func replaySymlinks(ar *txtar.Archive, root string) error {
	dir := root
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "cd":
			dir = filepath.Join(dir, f[1])
		case len(f) == 4 && f[0] == "symlink" && f[2] == "->":
			link := filepath.Join(dir, f[1])
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(f[3], link); err != nil && !os.IsExist(err) {
				return err
			}
		}
	}
	return nil
}

// checkProject proves the project extracted at work/p/sub, loaded from
// files (names in that directory; see checkArchive).
func checkProject(ctx context.Context, srv *pgtest.Server, ar *txtar.Archive, work, sub string, files []string, jdbcErr error, out *outcome) {
	projDir := filepath.Join(work, "p", sub)
	proj, err := loadFiles(ctx, projDir, files)
	if err != nil {
		out.problem("compose-go cannot load the expected %s: %v", sub, err)
		return
	}
	dbs := findDBs(proj)
	if len(dbs) == 0 {
		out.skip = "no PostgreSQL service of the catalogue (catalog/images, server:) in the expected output"
		return
	}
	edges := append(collectEdges(proj, dbs), fileEdges(proj, dbs, projDir)...)
	if len(edges) == 0 {
		out.skip = "no client value in socket form (JDBC with socketFactory, libpq URI or DSN with host=/dir, PGHOST=/dir)"
		return
	}

	// What compose makes of the same file when `$$FactoryArg` is written
	// with a single `$`, as in a hand migration copied from the docs.
	unescaped := map[string]string{}
	if hasEscapedFactory(ar) {
		vdir := filepath.Join(work, "v")
		if _, err := os.Stat(vdir); err != nil {
			if _, err := extract(ar, vdir, unescapeFactory); err != nil {
				out.problem("extracting the unescaped variant: %v", err)
				return
			}
		}
		vproj, err := loadProject(ctx, filepath.Join(vdir, sub))
		if err != nil {
			out.problem("compose-go cannot load the unescaped variant: %v", err)
			return
		}
		for _, e := range collectEdges(vproj, findDBs(vproj)) {
			unescaped[e.service+"/"+e.key] = e.value
		}
	}

	links := map[string]string{} // storage -> temp dir standing in for it
	var attempts []attempt
	for _, e := range edges {
		db, ok := resolveMount(proj, dbs, e, out)
		if !ok {
			continue
		}
		if e.port != db.port {
			out.note("%s opens .s.PGSQL.%d but %s listens on %d: expect a failure", e, e.port, db.name, db.port)
		}
		m, _ := mountAt(proj.Services[e.service], e.dir)
		key := m.Type + ":" + m.Source
		tmp, ok := links[key]
		if !ok {
			if tmp, err = socketStandIn(srv, db.port); err != nil {
				out.problem("%v", err)
				return
			}
			defer os.RemoveAll(tmp)
			links[key] = tmp
		}
		if err := ensureUser(ctx, srv, e); err != nil {
			out.problem("%v", err)
			continue
		}
		conn, dropped, err := probeString(e, tmp)
		if len(dropped) > 0 {
			out.note("%s: probing without %s (the application's library takes them out: libpq rejects them and pgx.Connect sends them to the server)", e, strings.Join(dropped, ", "))
		}
		if err != nil {
			out.problem("%s: %v", e, err)
			continue
		}
		switch e.dialect {
		case "jdbc":
			if jdbcErr != nil {
				out.problem("%s: cannot run the JDBC probe: %v", e, jdbcErr)
				continue
			}
			attempts = append(attempts, attempt{edge: e, driver: "jdbc", conn: conn})
			if e.inFile && strings.Contains(conn, "$FactoryArg") {
				// Written as in a compose file, the file would hand pgjdbc `$$`.
				doubled := strings.Replace(conn, "$FactoryArg", "$$FactoryArg", 1)
				attempts = append(attempts, attempt{edge: e, driver: "jdbc", conn: doubled, negative: true, wantErr: doubledFactoryErr})
			}
			if bad, ok := unescaped[e.service+"/"+e.key]; ok && bad != e.value {
				if strings.Contains(bad, "$FactoryArg") {
					out.problem("%s: unescaped variant still reads %q; compose should have interpolated $FactoryArg away", e, bad)
					continue
				}
				badConn, _ := substituteDir(bad, e.dir, tmp)
				attempts = append(attempts, attempt{edge: e, driver: "jdbc", conn: badConn, negative: true})
			}
		default:
			attempts = append(attempts, attempt{edge: e, driver: "pgx", conn: conn}, attempt{edge: e, driver: "psql", conn: conn})
		}
	}
	runAttempts(ctx, attempts, out)
}

// collectEdges finds the socket-form connection strings of every service
// that is not a database: environment values (env_file included, as
// compose-go resolved them), PGHOST, and command/entrypoint arguments
// (whole, or after `=` in --flag=value).
func collectEdges(p *types.Project, dbs []dbService) []edge {
	isDB := map[string]bool{}
	for _, db := range dbs {
		isDB[db.name] = true
	}
	var edges []edge
	for _, name := range p.ServiceNames() {
		if isDB[name] {
			continue
		}
		svc := p.Services[name]
		env := map[string]string{}
		for k, v := range svc.Environment {
			if v != nil {
				env[k] = *v
			}
		}
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		add := func(e edge, key string) {
			e.service, e.key = name, key
			e.fillDefaults(env)
			if c := catalog.Lookup(svc.Image); c != nil && c.NotAClient {
				// A cache or proxy that inherits the value from a shared
				// env_file does not read it; one that mounts the socket
				// is proved like any client.
				if _, ok := mountAt(svc, e.dir); !ok {
					return
				}
			}
			edges = append(edges, e)
		}
		shared := func(dir string) bool { return sharedSocketDir(svc, dbs, dir) }
		for _, k := range keys {
			if e, ok := classify(env[k]); ok {
				add(e, k)
			} else if e, ok := hostVarEdge(k, env[k], env, shared); ok {
				add(e, k)
			} else {
				for _, e := range docEdges(env[k]) {
					add(e, k+" "+e.key)
				}
			}
		}
		if e, ok := pgenvEdge(env); ok {
			add(e, "PGHOST")
		}
		for label, args := range map[string][]string{"command": svc.Command, "entrypoint": svc.Entrypoint} {
			for i, a := range args {
				v := a
				if strings.HasPrefix(a, "-") {
					_, v, _ = strings.Cut(a, "=")
				}
				if e, ok := classify(v); ok {
					add(e, label+"["+strconv.Itoa(i)+"]")
				}
			}
		}
	}
	return edges
}

// resolveMount checks FACTS.md's sharing rules for e: the client's socket
// directory is a mount whose storage some PostgreSQL service mounts, read
// and write, at its own socket directory. It returns that service.
func resolveMount(p *types.Project, dbs []dbService, e edge, out *outcome) (dbService, bool) {
	m, ok := mountAt(p.Services[e.service], e.dir)
	if !ok {
		out.problem("%s: service %s mounts nothing at the socket directory %s", e, e.service, e.dir)
		return dbService{}, false
	}
	for _, db := range dbs {
		dm, ok := mountAt(db.svc, db.socketDir)
		if !ok || !sameStorage(m, dm) {
			continue
		}
		if dm.ReadOnly {
			out.problem("%s: %s mounts %s read-only at %s; the server must create its socket and lock file there", e, db.name, dm.Source, db.socketDir)
			return dbService{}, false
		}
		if !m.ReadOnly {
			out.note("%s: client mount of %s is read-write (read-only would do)", e, m.Source)
		}
		return db, true
	}
	if m.Type == types.VolumeTypeBind {
		// A host directory no project server mounts: a server outside the
		// project (the host's own); the tool leaves such values (UDS134).
		out.note("%s: bind %q at %s is a foreign socket (no project server mounts it): not probed", e, m.Source, e.dir)
		return dbService{}, false
	}
	out.problem("%s: %s %q mounted at %s is not mounted by any PostgreSQL service at its socket directory", e, m.Type, m.Source, e.dir)
	return dbService{}, false
}

// socketStandIn makes a directory holding only .s.PGSQL.<port>, a symlink
// to srv's real socket: the client's view of the socket volume.
func socketStandIn(srv *pgtest.Server, port int) (string, error) {
	// os.MkdirTemp(""), not t.TempDir: socket paths must stay under 108
	// bytes, and test-named directories can be long.
	dir, err := os.MkdirTemp("", "e2s")
	if err != nil {
		return "", err
	}
	if err := os.Symlink(srv.SocketPath(), filepath.Join(dir, ".s.PGSQL."+strconv.Itoa(port))); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// ensureUser creates the role and database e names. The bootstrap superuser
// is left alone: resetting its password would break the server's own TCP
// checks.
func ensureUser(ctx context.Context, srv *pgtest.Server, e edge) error {
	if e.user != srv.SuperUser {
		if err := srv.EnsureRole(ctx, e.user, e.password); err != nil {
			return err
		}
	}
	return srv.EnsureDatabase(ctx, e.database, e.user)
}

// probeString is e's connection string with the socket directory mapped to
// tmp. libpq forms without a user get one (user=...), standing for however
// the app supplies it: otherwise libpq and pgx would log in as the OS user
// running the test. URI parameters that the application's own library
// takes out before it dials (appParam) are dropped, and returned, because
// libpq rejects them and pgx.Connect would send them to the server as
// settings.
func probeString(e edge, tmp string) (conn string, dropped []string, err error) {
	if e.dialect == "pgenv" || e.dialect == "hostdir" || e.dialect == "npgsql" {
		// Npgsql: no .NET here; libpq opens the same socket file
		// (dir/.s.PGSQL.port) with the same user and database.
		return fmt.Sprintf("host=%s port=%d user=%s dbname=%s", quoteKeyword(tmp), e.port, quoteKeyword(e.user), quoteKeyword(e.database)), nil, nil
	}
	s, ok := substituteDir(e.value, e.dir, tmp)
	if !ok {
		return "", nil, fmt.Errorf("socket directory %s not found in the value to map it", e.dir)
	}
	switch e.dialect {
	case "uri":
		// pgx and libpq know postgres:// and postgresql:// only; a
		// +driver suffix is SQLAlchemy's, over the same URI.
		s = "postgresql://" + s[uriSchemeRe.FindStringIndex(s)[1]:]
		if base, query, ok := strings.Cut(s, "?"); ok {
			var keep []string
			for _, p := range strings.Split(query, "&") {
				if appParam(p) {
					dropped = append(dropped, p)
				} else {
					keep = append(keep, p)
				}
			}
			s = base + "?" + strings.Join(keep, "&")
		}
		if !e.userInString {
			sep := "?"
			if strings.Contains(s, "?") {
				sep = "&"
			}
			s += sep + "user=" + url.QueryEscape(e.user)
		}
	case "dsn":
		if !e.userInString {
			s += " user=" + quoteKeyword(e.user)
		}
	}
	return s, dropped, nil
}

// appParam reports whether the URI query parameter p (name=value) is read
// and removed by the application's library rather than by the driver: a
// parameter that consumer/readers.yaml gives to one reader (pgxpool's
// pool_*, Prisma's schema and connection_limit, Doctrine's serverVersion),
// Doctrine's charset (DsnParser turns it into a driver option), and
// max_conns, max_idle_conns, max_conn_lifetime and max_conn_idle_time,
// which Ory's sqlcon takes out before it dials
// (github.com/ory/x/sqlcon/parse.go, ParseConnectionOptions), as Kratos,
// Hydra and Keto do.
func appParam(p string) bool {
	name, _, _ := strings.Cut(p, "=")
	switch name {
	case "max_conns", "max_idle_conns", "max_conn_lifetime", "max_conn_idle_time", "charset":
		return true
	}
	return strings.HasPrefix(name, "pool_") || consumer.ByParam(name) != nil
}

// runAttempts connects as planned (all JDBC attempts in one JVM) and
// records every mismatch.
func runAttempts(ctx context.Context, attempts []attempt, out *outcome) {
	var jdbc []probe.JDBCTarget
	var jdbcIdx []int
	results := make([]probe.JDBCOutcome, len(attempts))
	for i, a := range attempts {
		switch a.driver {
		case "pgx":
			results[i].Result, results[i].Err = probe.Pgx(ctx, a.conn)
		case "psql":
			results[i].Result, results[i].Err = probe.Psql(ctx, a.conn)
		case "jdbc":
			jdbc = append(jdbc, probe.JDBCTarget{URL: a.conn, User: a.edge.user, Password: a.edge.password})
			jdbcIdx = append(jdbcIdx, i)
		}
	}
	if len(jdbc) > 0 {
		res, err := probe.JDBCBatch(ctx, jdbc)
		if err != nil {
			out.problem("JDBC probe: %v", err)
			return
		}
		for j, i := range jdbcIdx {
			results[i] = res[j]
		}
	}
	for i, a := range attempts {
		r, err := results[i].Result, results[i].Err
		want := noSuchFactoryCtor
		if a.wantErr != "" {
			want = a.wantErr
		}
		switch {
		case a.negative && err == nil:
			out.problem("%s: with $FactoryArg interpolated away (%s) %s still connected: %v", a.edge, a.conn, a.driver, r)
		case a.negative && !strings.Contains(err.Error(), want):
			out.problem("%s: negative variant %s failed with %v; want %q", a.edge, a.conn, err, want)
		case a.negative:
			out.note("%s: negative variant fails as expected: %v", a.edge, err)
		case err != nil:
			out.problem("%s: %s could not connect with %s: %v", a.edge, a.driver, a.conn, err)
		case r.One != 1 || !r.OverSocket || r.User != a.edge.user || r.Database != a.edge.database:
			out.problem("%s: %s reached %v; want %s@%s via socket", a.edge, a.driver, r, a.edge.user, a.edge.database)
		default:
			out.note("%s: %s ok: %v", a.edge, a.driver, r)
		}
	}
}

func hasEscapedFactory(ar *txtar.Archive) bool {
	for _, f := range ar.Files {
		if bytes.Contains(f.Data, []byte("$$FactoryArg")) {
			return true
		}
	}
	return false
}

// unescapeFactory turns `$$FactoryArg` into `$FactoryArg` in compose files,
// the seed-style spelling compose interpolates to nothing.
func unescapeFactory(name string, data []byte) []byte {
	if ext := filepath.Ext(name); ext != ".yml" && ext != ".yaml" {
		return data
	}
	return bytes.ReplaceAll(data, []byte("$$FactoryArg"), []byte("$FactoryArg"))
}

// sharedSocketDir reports whether dir is where svc mounts the storage that
// one of dbs mounts at its socket directory: a variable holding exactly
// that directory is a socket host.
func sharedSocketDir(svc types.ServiceConfig, dbs []dbService, dir string) bool {
	if !strings.HasPrefix(dir, "/") {
		return false
	}
	m, ok := mountAt(svc, dir)
	if !ok {
		return false
	}
	for _, db := range dbs {
		if dm, ok := mountAt(db.svc, db.socketDir); ok && sameStorage(m, dm) {
			return true
		}
	}
	return false
}
