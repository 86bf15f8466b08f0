package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/lib/pq"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/internal/probe"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// readersDir holds the non-Go probes and the npm packages they load
// (package.json, package-lock.json; scripts/test.sh runs npm ci there).
const readersDir = "testdata/readers"

// readerQuery tells the test which transport a session used and which
// server answered: inet_client_addr() is NULL exactly over a Unix socket,
// and unix_socket_directories is the test server's own directory, so a
// reader that ignored ?host= and found some other server's default socket
// does not pass for a socket connection to this one.
const readerQuery = "SELECT inet_client_addr() IS NULL, current_setting('unix_socket_directories')"

// readerResult is one connection attempt: OK with the server's answer, or
// the reader's refusal.
type readerResult struct {
	OK     bool   `json:"ok"`
	Socket bool   `json:"socket"`
	Dir    string `json:"dir"`
	Error  string `json:"error"`
}

func (r readerResult) String() string {
	switch {
	case !r.OK:
		return "refused: " + r.Error
	case r.Socket:
		return "socket " + r.Dir
	}
	return "TCP"
}

// readerCase connects with one library the way an application hands it a
// URI, for one row of consumer/readers.yaml.
type readerCase struct {
	// name is the subtest (TestURIReaders/NAME); the row's proof names
	// its first element.
	name string
	// row is the reader's name in consumer/readers.yaml.
	row string
	// src is the value as a compose file holds it over TCP: db:5432 is
	// the server's place (replaced by 127.0.0.1:PORT for the TCP control).
	src string
	// libs are the keys of versions() whose "NAME VERSION" the row's
	// proof must record.
	libs []string
	// run connects once per URI, in order.
	run func(ctx context.Context, uris []string) ([]readerResult, error)
	// versions reports the library versions, or an error saying what to
	// install.
	versions func() (map[string]string, error)
	// user and password go beside the URL (pgjdbc takes no user info).
	user, password string
}

const readerSrc = "postgresql://postgres:postgres@db:5432/postgres"

var readerCases = []readerCase{
	{name: "libpq/psql", row: "libpq", src: readerSrc, libs: []string{"libpq"}, run: psqlRun, versions: psqlVersions},
	{name: "libpq/pg_connect", row: "libpq", src: readerSrc, libs: []string{"php-pgsql"}, run: scriptRun("php", "probe.php", "pg_connect"), versions: scriptVersions("php", "probe.php", map[string]string{"pgsql": "php-pgsql"}, "apt-get install php-cli php-pgsql")},
	{name: "psycopg/psycopg2", row: "psycopg", src: readerSrc, libs: []string{"psycopg2"}, run: scriptRun("python", "probe.py", "psycopg2"), versions: pyVersions("psycopg2", "python3-psycopg2")},
	{name: "psycopg/psycopg3", row: "psycopg", src: readerSrc, libs: []string{"psycopg"}, run: scriptRun("python", "probe.py", "psycopg"), versions: pyVersions("psycopg", "python3-psycopg")},
	{name: "sqlalchemy/psycopg2", row: "sqlalchemy", src: "postgresql+psycopg2://postgres:postgres@db:5432/postgres", libs: []string{"sqlalchemy"}, run: scriptRun("python", "probe.py", "sqlalchemy"), versions: pyVersions("sqlalchemy", "python3-sqlalchemy python3-psycopg2")},
	{name: "sqlalchemy/asyncpg", row: "sqlalchemy", src: "postgresql+asyncpg://postgres:postgres@db:5432/postgres", libs: []string{"sqlalchemy"}, run: scriptRun("python", "probe.py", "sqlalchemy"), versions: pyVersions("sqlalchemy", "python3-sqlalchemy python3-asyncpg")},
	{name: "asyncpg", row: "asyncpg", src: readerSrc, libs: []string{"asyncpg"}, run: scriptRun("python", "probe.py", "asyncpg"), versions: pyVersions("asyncpg", "python3-asyncpg")},
	{name: "encode-databases", row: "encode-databases", src: readerSrc, libs: []string{"databases", "asyncpg"}, run: scriptRun("python", "probe.py", "databases"),
		versions: scriptVersions("python", "probe.py", map[string]string{"databases": "databases", "asyncpg": "asyncpg"}, "apt-get install python3-databases python3-asyncpg")},
	{name: "django-environ", row: "django-environ", src: readerSrc, libs: []string{"django-environ", "django", "psycopg2"}, run: scriptRun("python", "probe.py", "django-environ"),
		versions: scriptVersions("python", "probe.py", map[string]string{"django-environ": "django-environ", "django": "django", "psycopg2": "psycopg2"}, "apt-get install python3-django-environ python3-django python3-psycopg2")},
	{name: "pydantic", row: "pydantic", src: readerSrc, libs: []string{"pydantic"}, run: scriptRun("python", "probe.py", "pydantic"), versions: pyVersions("pydantic", "python3-pydantic python3-sqlalchemy")},
	{name: "php-parse-url/doctrine", row: "php-parse-url", src: readerSrc, libs: []string{"php"}, run: scriptRun("php", "probe.php", "doctrine"), versions: scriptVersions("php", "probe.php", map[string]string{"php": "php"}, "apt-get install php-cli php-pgsql")},
	{name: "php-parse-url/laravel", row: "php-parse-url", src: readerSrc, libs: []string{"php"}, run: scriptRun("php", "probe.php", "laravel"), versions: scriptVersions("php", "probe.php", map[string]string{"php": "php"}, "apt-get install php-cli php-pgsql")},
	{name: "ruby-pg", row: "ruby-pg", src: readerSrc, libs: []string{"pg"}, run: scriptRun("ruby", "probe.rb", "ruby-pg"), versions: scriptVersions("ruby", "probe.rb", map[string]string{"pg": "pg"}, "apt-get install ruby-pg")},
	{name: "rails", row: "rails", src: readerSrc, libs: []string{"activerecord", "pg"}, run: scriptRun("ruby", "probe.rb", "rails"), versions: scriptVersions("ruby", "probe.rb", map[string]string{"activerecord": "activerecord", "pg": "pg"}, "apt-get install ruby-activerecord ruby-pg")},
	{name: "pgx", row: "pgx", src: readerSrc, libs: []string{"pgx"}, run: pgxRun, versions: goVersions("github.com/jackc/pgx/v5", "pgx")},
	{name: "lib-pq", row: "lib/pq", src: readerSrc + "?sslmode=disable", libs: []string{"lib/pq"}, run: libpqRun, versions: goVersions("github.com/lib/pq", "lib/pq")},
	{name: "bun-pgdriver", row: "bun-pgdriver", src: readerSrc + "?sslmode=disable", libs: []string{"pgdriver"}, run: pgdriverRun, versions: goVersions("github.com/uptrace/bun/driver/pgdriver", "pgdriver")},
	{name: "node-postgres/pg", row: "node-postgres", src: readerSrc, libs: []string{"pg"}, run: scriptRun("node", "probe.js", "pg"), versions: nodeVersions("pg")},
	{name: "node-postgres/pg-connection-string", row: "node-postgres", src: readerSrc, libs: []string{"pg-connection-string"}, run: scriptRun("node", "probe.js", "pg-connection-string"), versions: nodeVersions("pg-connection-string")},
	{name: "knex", row: "knex", src: readerSrc, libs: []string{"knex"}, run: scriptRun("node", "probe.js", "knex"), versions: nodeVersions("knex")},
	{name: "postgres.js", row: "postgres.js", src: readerSrc, libs: []string{"postgres"}, run: scriptRun("node", "probe.js", "postgres"), versions: nodeVersions("postgres")},
	{name: "sequelize", row: "sequelize", src: "postgres://postgres:postgres@db:5432/postgres", libs: []string{"sequelize"}, run: scriptRun("node", "probe.js", "sequelize"), versions: nodeVersions("sequelize")},
	{name: "typeorm/0.3", row: "typeorm", src: readerSrc, libs: []string{"typeorm"}, run: scriptRun("node", "probe.js", "typeorm"), versions: nodeVersions("typeorm")},
	{name: "typeorm/1", row: "typeorm", src: readerSrc, libs: []string{"typeorm1"}, run: scriptRun("node", "probe.js", "typeorm1"), versions: nodeVersions("typeorm1")},
	{name: "whatwg-url", row: "whatwg-url", src: readerSrc, libs: []string{"node"}, run: scriptRun("node", "probe.js", "whatwg-url"), versions: nodeVersions("node")},
	{name: "jdbc-concat", row: "jdbc-concat", src: "postgresql://db:5432/postgres", user: "postgres", password: "postgres", libs: []string{"pgjdbc"}, versions: jdbcVersions},
}

// readerForms are the socket forms the test writes, from the TCP value
// src, for a server whose socket is dir/.s.PGSQL.port: empty and
// localhost and file as the tool writes them (libpq.URIToSocket,
// libpq.WithAuthorityHost, libpq.WithSocketFile), encoded by hand (the
// tool never writes it).
func readerForms(t *testing.T, src, dir string, port int) map[consumer.Form]string {
	t.Helper()
	empty, _, err := libpq.URIToSocket(src, dir, port)
	if err != nil {
		t.Fatal(err)
	}
	local, err := libpq.WithAuthorityHost(empty, "localhost")
	if err != nil {
		t.Fatal(err)
	}
	scheme, rest, _ := strings.Cut(src, "://")
	userinfo, _, _ := strings.Cut(rest, "@db:5432")
	if !strings.Contains(rest, "@") {
		userinfo = ""
	} else {
		userinfo += "@"
	}
	encoded := fmt.Sprintf("%s://%s%s:%d/postgres", scheme, userinfo, strings.ReplaceAll(dir, "/", "%2F"), port)
	file, err := libpq.WithSocketFile(empty)
	if err != nil {
		t.Fatal(err)
	}
	if want := "host=" + dir + "/.s.PGSQL." + strconv.Itoa(port); !strings.Contains(file, want) || strings.Contains(file, "port=") {
		t.Fatalf("file socket form %q lacks %q or keeps ?port=", file, want)
	}
	// The forms' shapes, so a change in the writer cannot make this test
	// try something else than the forms.
	at := "@localhost/postgres?"
	if port != libpq.DefaultPort {
		at = fmt.Sprintf("@localhost:%d/postgres?", port) // the port in the authority (libpq.WithAuthorityHost)
	}
	for _, c := range []struct{ uri, want string }{{empty, "@/postgres?"}, {local, at}} {
		if userinfo == "" {
			c.want = strings.TrimPrefix(c.want, "@")
		}
		if !strings.Contains(c.uri, c.want) || !strings.Contains(c.uri, "host="+dir) {
			t.Fatalf("socket form %q lacks %q or host=%s", c.uri, c.want, dir)
		}
	}
	return map[consumer.Form]string{consumer.Empty: empty, consumer.Localhost: local, consumer.Encoded: encoded, consumer.File: file}
}

// TestURIReaders connects with each real library of consumer/readers.yaml
// that installs here (Debian packages, the npm packages pinned in
// testdata/readers, Go modules, pgjdbc) with every socket form of a
// postgres:// URI: a form the row accepts must reach this server over its
// socket (inet_client_addr() IS NULL, and the server's own socket
// directory); a form the row does not accept must be refused or stay on
// TCP, which proves the "no". A TCP control proves each probe connects and
// tells TCP apart. Then every row whose proof is not "documented" must
// name a subtest that ran here, and record the versions it ran with.
//
// A missing library skips its subtest, or fails it under CI=true
// ($PGTEST_REQUIRE): scripts/test.sh installs them all.
func TestURIReaders(t *testing.T) {
	srv := pgtest.Shared(t)
	alias := t.TempDir()
	if err := os.Symlink(srv.SocketPath(), filepath.Join(alias, ".s.PGSQL.5432")); err != nil {
		t.Fatal(err)
	}
	ran := map[string]map[string]string{} // subtest -> versions it ran with
	for _, c := range readerCases {
		t.Run(c.name, func(t *testing.T) {
			row := consumer.ByName(c.row)
			if row == nil {
				t.Fatalf("consumer/readers.yaml has no row %q", c.row)
			}
			vers, err := c.versions()
			if err != nil {
				if pgtest.Required() {
					t.Fatalf("reader library missing under CI: %v", err)
				}
				t.Skipf("skipping: %v", err)
			}
			// Two shapes of each form: the server's socket at the default
			// port (through alias, a directory whose .s.PGSQL.5432 links to
			// it), as the tool writes a value for a database on 5432 (no
			// port parameter), and at its own port (port=N beside host=).
			shapes := []struct {
				name string
				dir  string
				port int
			}{{"port 5432", alias, libpq.DefaultPort}, {"port " + strconv.Itoa(srv.Port), srv.SocketDir, srv.Port}}
			// The server's TCP password is random per run (pgtest): the
			// cases' URIs carry "postgres" in its place.
			src := strings.Replace(c.src, "postgres:postgres@", "postgres:"+srv.SuperPassword+"@", 1)
			password := c.password
			if password == "postgres" {
				password = srv.SuperPassword
			}
			tcp := strings.Replace(src, "db:5432", "127.0.0.1:"+strconv.Itoa(srv.Port), 1)
			order := []consumer.Form{consumer.Empty, consumer.Localhost, consumer.Encoded, consumer.File}
			uris := []string{tcp}
			for _, sh := range shapes {
				forms := readerForms(t, src, sh.dir, sh.port)
				for _, f := range order {
					uris = append(uris, forms[f])
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			var res []readerResult
			if c.run != nil {
				res, err = c.run(ctx, uris)
			} else {
				res, err = jdbcConcatRun(ctx, uris, c.user, password)
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != len(uris) {
				t.Fatalf("%d results for %d URIs", len(res), len(uris))
			}
			if r := res[0]; !r.OK || r.Socket {
				t.Fatalf("TCP control %s: %s; want a TCP session (the probe must connect and tell TCP apart)", redactURI(tcp), r)
			}
			for si, sh := range shapes {
				for fi, f := range order {
					k := 1 + si*len(order) + fi
					r, uri := res[k], redactURI(uris[k])
					onSocket := r.OK && r.Socket && (r.Dir == srv.SocketDir || r.Dir == jdbcAnyDir)
					want := row.Accepts(f) || row.Newer[f] != ""
					if sh.port != libpq.DefaultPort && row.PortIgnored && f == consumer.Empty {
						want = false // ?port= is not read, and the empty form has no authority port
					}
					switch {
					case want && !onSocket:
						t.Errorf("%s, %s form %s: %s; readers.yaml says %s accepts it, so it must connect over %s", sh.name, f, uri, r, c.row, srv.SocketDir)
					case !want && onSocket:
						t.Errorf("%s, %s form %s connected over the socket; readers.yaml says %s does not accept it: fix the row", sh.name, f, uri, c.row)
					default:
						t.Logf("%s, %s form %s: %s", sh.name, f, uri, r)
					}
				}
			}
			if !t.Failed() {
				ran[c.name] = vers
			}
		})
	}

	// Every proven row names subtests that ran, with their versions (not
	// checked when -run picks subtests: the others did not run).
	if strings.Contains(flag.Lookup("test.run").Value.String(), "/") {
		return
	}
	for _, row := range consumer.Readers() {
		if row.Proof == "documented" {
			continue
		}
		name, libs, ok := strings.Cut(strings.TrimPrefix(row.Proof, "e2e TestURIReaders/"), ": ")
		if !ok || !strings.HasPrefix(row.Proof, "e2e TestURIReaders/") {
			t.Errorf("readers.yaml %s: proof %q: want \"documented\" or \"e2e TestURIReaders/NAME: LIB VERSION, ...\"", row.Name, row.Proof)
			continue
		}
		var subs []readerCase
		for _, c := range readerCases {
			if c.name == name || strings.HasPrefix(c.name, name+"/") {
				subs = append(subs, c)
			}
		}
		if len(subs) == 0 {
			t.Errorf("readers.yaml %s: proof names TestURIReaders/%s, which does not exist", row.Name, name)
		}
		for _, c := range subs {
			if c.row != row.Name {
				t.Errorf("readers.yaml %s: proof names TestURIReaders/%s, which tests row %s", row.Name, c.name, c.row)
			}
			vers, ok := ran[c.name]
			if !ok {
				t.Errorf("readers.yaml %s: TestURIReaders/%s did not run and pass here", row.Name, c.name)
				continue
			}
			for _, lib := range c.libs {
				if rec := lib + " " + vers[lib]; !strings.Contains(libs, rec) {
					t.Errorf("readers.yaml %s: proof %q does not record %q, the version tested", row.Name, row.Proof, rec)
				}
			}
		}
	}
	// And every subtest belongs to a row that cites it.
	for _, c := range readerCases {
		row := consumer.ByName(c.row)
		if row != nil && !strings.HasPrefix(row.Proof, "e2e TestURIReaders/"+strings.SplitN(c.name, "/", 2)[0]+":") {
			t.Errorf("TestURIReaders/%s tests %s, whose proof %q does not cite it", c.name, c.row, row.Proof)
		}
	}
}

func redactURI(s string) string { return strings.ReplaceAll(s, ":postgres@", ":****@") }

// cleanEnv is the environment for a probe: no PG* variable may decide
// where it connects.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			out = append(out, kv)
		}
	}
	return out
}

// interpreters: Debian's packages install into /usr/bin/python3's
// dist-packages, which a python3 earlier on $PATH (pyenv) does not see.
func interpreter(lang string) (string, error) {
	names := map[string][]string{"python": {"/usr/bin/python3", "python3"}, "php": {"php"}, "ruby": {"ruby"}, "node": {"node"}}[lang]
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found (%s)", lang, strings.Join(names, ", "))
}

// scriptRun runs testdata/readers/FILE READER with one URI a line on
// stdin and reads one JSON result a line.
func scriptRun(lang, file, reader string) func(context.Context, []string) ([]readerResult, error) {
	return func(ctx context.Context, uris []string) ([]readerResult, error) {
		bin, err := interpreter(lang)
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, bin, file, reader)
		cmd.Dir = readersDir
		cmd.Env = cleanEnv()
		cmd.Stdin = strings.NewReader(strings.Join(uris, "\n") + "\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s %s %s: %v\n%s", bin, file, reader, err, stderr.String())
		}
		var res []readerResult
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r readerResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				return nil, fmt.Errorf("%s %s: output line %q: %v", file, reader, line, err)
			}
			res = append(res, r)
		}
		return res, nil
	}
}

var (
	versionsMu    sync.Mutex
	versionsCache = map[string]map[string]string{}
)

// scriptVersions runs FILE versions once per file and renames its keys;
// a key missing from the answer is a library not installed (install says
// how to get it).
func scriptVersions(lang, file string, keys map[string]string, install string) func() (map[string]string, error) {
	return func() (map[string]string, error) {
		versionsMu.Lock()
		defer versionsMu.Unlock()
		got, ok := versionsCache[file]
		if !ok {
			bin, err := interpreter(lang)
			if err != nil {
				return nil, fmt.Errorf("%v; %s", err, install)
			}
			cmd := exec.Command(bin, file, "versions")
			cmd.Dir = readersDir
			out, err := cmd.CombinedOutput()
			if err != nil || json.Unmarshal(out, &got) != nil {
				return nil, fmt.Errorf("%s %s versions: %v: %s; %s", bin, file, err, out, install)
			}
			versionsCache[file] = got
		}
		vers := map[string]string{}
		for from, to := range keys {
			v, ok := got[from]
			if !ok || v == "" || v == "false" {
				return nil, fmt.Errorf("%s: %s not installed; %s", file, from, install)
			}
			vers[to] = v
		}
		return vers, nil
	}
}

func pyVersions(module, debs string) func() (map[string]string, error) {
	return scriptVersions("python", "probe.py", map[string]string{module: module}, "apt-get install "+debs)
}

func nodeVersions(pkg string) func() (map[string]string, error) {
	return scriptVersions("node", "probe.js", map[string]string{pkg: pkg},
		"npm ci in e2e/"+readersDir+" (scripts/test.sh does it)")
}

// psqlRun connects with psql (libpq) once per URI.
func psqlRun(ctx context.Context, uris []string) ([]readerResult, error) {
	psql, err := probe.PsqlPath()
	if err != nil {
		return nil, err
	}
	var res []readerResult
	for _, uri := range uris {
		cmd := exec.CommandContext(ctx, psql, "-X", "-w", "-q", "-A", "-t", "-F", "\t", "-d", uri, "-c", readerQuery)
		cmd.Env = append(cleanEnv(), "PGCONNECT_TIMEOUT=10")
		out, err := cmd.CombinedOutput()
		if err != nil {
			res = append(res, readerResult{Error: strings.TrimSpace(string(out))})
			continue
		}
		sock, dir, _ := strings.Cut(strings.TrimSpace(string(out)), "\t")
		res = append(res, readerResult{OK: true, Socket: sock == "t", Dir: dir})
	}
	return res, nil
}

func psqlVersions() (map[string]string, error) {
	psql, err := probe.PsqlPath()
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(psql, "--version").Output()
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(out)) // psql (PostgreSQL) 15.18 (Debian ...)
	if len(f) < 3 {
		return nil, fmt.Errorf("psql --version: %q", out)
	}
	// The major version: Debian's updates move the minor one.
	major, _, _ := strings.Cut(f[2], ".")
	return map[string]string{"libpq": major}, nil
}

func pgxRun(ctx context.Context, uris []string) ([]readerResult, error) {
	var res []readerResult
	for _, uri := range uris {
		r := readerResult{}
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		conn, err := pgx.Connect(cctx, uri)
		if err == nil {
			err = conn.QueryRow(cctx, readerQuery).Scan(&r.Socket, &r.Dir)
			conn.Close(context.Background())
		}
		cancel()
		r.OK = err == nil
		if err != nil {
			r.Error = err.Error()
		}
		res = append(res, r)
	}
	return res, nil
}

// pgdriverRun connects as dhax/go-base does (database/postgres.go:
// sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))). WithDSN
// panics on a URL it cannot parse: that is a refusal.
func pgdriverRun(ctx context.Context, uris []string) ([]readerResult, error) {
	var res []readerResult
	for _, uri := range uris {
		r := readerResult{}
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("pgdriver.WithDSN: %v", p)
				}
			}()
			db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(uri)))
			defer db.Close()
			cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			defer cancel()
			return db.QueryRowContext(cctx, readerQuery).Scan(&r.Socket, &r.Dir)
		}()
		r.OK = err == nil
		if err != nil {
			r.Error = err.Error()
		}
		res = append(res, r)
	}
	return res, nil
}

func libpqRun(ctx context.Context, uris []string) ([]readerResult, error) {
	var res []readerResult
	for _, uri := range uris {
		r := readerResult{}
		db, err := sql.Open("postgres", uri)
		if err == nil {
			cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			err = db.QueryRowContext(cctx, readerQuery).Scan(&r.Socket, &r.Dir)
			cancel()
			db.Close()
		}
		r.OK = err == nil
		if err != nil {
			r.Error = err.Error()
		}
		res = append(res, r)
	}
	return res, nil
}

// goVersions reads a module's version from the test binary's build info
// via go.mod: the version the e2e package is built with.
func goVersions(module, key string) func() (map[string]string, error) {
	return func() (map[string]string, error) {
		data, err := os.ReadFile(filepath.Join("..", "go.mod"))
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if i := slices.Index(f, module); i >= 0 && i+1 < len(f) {
				return map[string]string{key: f[i+1]}, nil
			}
		}
		return nil, fmt.Errorf("go.mod does not require %s", module)
	}
}

// jdbcAnyDir stands for the socket directory of a JDBC session over a
// socket: the JDBC probe's query does not read it.
const jdbcAnyDir = "(jdbc)"

// jdbcConcatRun is an application that builds "jdbc:" + the URI and hands
// it to pgjdbc (with junixsocket on the classpath, as a migrated JDBC app
// has), user and password in the connection properties.
func jdbcConcatRun(ctx context.Context, uris []string, user, password string) ([]readerResult, error) {
	var targets []probe.JDBCTarget
	for _, u := range uris {
		targets = append(targets, probe.JDBCTarget{URL: "jdbc:" + u, User: user, Password: password})
	}
	out, err := probe.JDBCBatch(ctx, targets)
	if err != nil {
		return nil, err
	}
	var res []readerResult
	for _, o := range out {
		if o.Err != nil {
			res = append(res, readerResult{Error: o.Err.Error()})
			continue
		}
		// pgjdbc has no socket of its own: a session it opened without
		// junixsocket's factory is TCP, whatever the server.
		r := readerResult{OK: true, Socket: o.Result.OverSocket}
		if r.Socket {
			r.Dir = jdbcAnyDir
		}
		res = append(res, r)
	}
	return res, nil
}

// jdbcVersions reads pgjdbc's major.minor version from Debian's
// versioned link to the jar (/usr/share/java/postgresql-VERSION.jar ->
// postgresql.jar).
func jdbcVersions() (map[string]string, error) {
	if err := probe.JDBCAvailable(); err != nil {
		return nil, err
	}
	m, _ := filepath.Glob("/usr/share/java/postgresql-[0-9]*.jar")
	if len(m) != 1 {
		return nil, fmt.Errorf("pgjdbc version: want one /usr/share/java/postgresql-VERSION.jar, found %v", m)
	}
	v := strings.Split(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m[0]), "postgresql-"), ".jar"), ".")
	if len(v) < 2 {
		return nil, fmt.Errorf("pgjdbc version: %s", m[0])
	}
	// Major.minor: Debian's security updates move the patch level.
	return map[string]string{"pgjdbc": v[0] + "." + v[1]}, nil
}
