package dockere2e

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// scenario is one compose project run on the engine. Its files come from a
// golden (testdata/script/<golden>.txtar: the migrated want/ files, or the
// input with input=true) or from the tool run on example's compose.yml.
type scenario struct {
	name    string
	golden  string
	input   bool
	example string
	steps   [][]string // tool arguments per step on example (nil: migrate)
	servers map[string]server
	clients map[string]client
	// serverLog: a substring each named service's output must contain.
	serverLog map[string]string
	// execs run in running services once the clients are done.
	execs []execProbe
}

// execProbe is udsprobe run with docker compose exec in a service.
type execProbe struct {
	service string
	env     []string // KEY=VALUE
	args    []string
	want    string // substring of the result line
}

// Result lines of udsprobe (internal/probe/Probe.java's format): over the
// socket inet_client_addr() is NULL ("t"), over TCP it is not ("f").
func socketOK(user, db string) string { return "OK\t1\t" + user + "\t" + db + "\tt" }
func tcpOK(user, db string) string    { return "OK\t1\t" + user + "\t" + db + "\tf" }

// official is the environment the official image needs to initialise (it
// refuses to start without a password) with the named user and database.
func official(user, db string) server {
	return server{env: map[string]string{"POSTGRES_USER": user, "POSTGRES_PASSWORD": "pw", "POSTGRES_DB": db}}
}

func jdbc(urlVar string) []string { return []string{"jdbc", urlVar, "UDS_USER", "UDS_PASSWORD"} }

var jdbcUser = map[string]string{"UDS_USER": "app", "UDS_PASSWORD": "pw"}

// seedApp is the Spring service of the seed (examples/spring-postgres, case
// 01): JDBC through junixsocket, $$FactoryArg through compose's own
// interpolation, the socket volume mounted read-only.
var seedApp = map[string]client{"application": {
	probes:   [][]string{{"jdbc", "SPRING_DATASOURCE_URL", "SPRING_DATASOURCE_USERNAME", "SPRING_DATASOURCE_PASSWORD"}},
	want:     []string{socketOK("app", "appdb")},
	readOnly: "/var/run/postgresql",
}}

var scenarios = []scenario{
	{name: "example-spring", example: "examples/spring-postgres", clients: seedApp},
	{name: "example-spring-revert", example: "examples/spring-postgres", steps: [][]string{{}, {"revert"}},
		clients: map[string]client{"application": {
			probes: seedApp["application"].probes,
			want:   []string{tcpOK("app", "appdb")},
		}}},
	{name: "01-seed-jdbc", golden: "01-seed-jdbc", clients: seedApp},
	// pgx only: pool_max_conns is a pgx parameter that libpq (psql) rejects.
	{name: "02-list-env-libpq", golden: "02-list-env-libpq-crlf", clients: map[string]client{"api": {
		probes:   [][]string{{"pgx", "DATABASE_URL"}},
		want:     []string{socketOK("api", "api")},
		readOnly: "/var/run/postgresql",
	}}},
	{name: "03-keyword-dsn", golden: "03-keyword-dsn", servers: map[string]server{"pg": official("worker", "jobs")},
		clients: map[string]client{"worker": {
			probes: [][]string{{"pgx", "PG_DSN"}, {"psql", "PG_DSN"}},
			want:   []string{socketOK("worker", "jobs"), socketOK("worker", "jobs")},
		}}},
	{name: "06-custom-port", golden: "06-custom-port", servers: map[string]server{"pg": official("reports", "reports")},
		clients: map[string]client{"reports": {
			probes: [][]string{{"pgx", "DATABASE_URL"}, {"psql", "DATABASE_URL"}},
			want:   []string{socketOK("reports", "reports"), socketOK("reports", "reports")},
		}}},
	// Each client reaches its own server: the users exist on one only.
	{name: "09-two-databases", golden: "09-two-databases",
		servers: map[string]server{"users-db": official("users", "users"), "orders-db": official("orders", "orders")},
		clients: map[string]client{
			"users":  {probes: [][]string{{"pgx", "DATABASE_URL"}}, want: []string{socketOK("users", "users")}},
			"orders": {env: map[string]string{"UDS_USER": "orders", "UDS_PASSWORD": "pw"}, probes: [][]string{jdbc("SPRING_DATASOURCE_URL")}, want: []string{socketOK("orders", "orders")}},
		}},
	{name: "10-alias-container-name", golden: "10-alias-container-name",
		servers: map[string]server{"postgres": {env: official("app", "core").env, databases: []string{"reporting"}}},
		clients: map[string]client{"app": {env: jdbcUser,
			probes: [][]string{jdbc("PRIMARY_URL"), jdbc("REPORTING_URL")},
			want:   []string{socketOK("app", "core"), socketOK("app", "reporting")},
		}}},
	// The hand migration of case 12 once the tool repaired it (host bind mount kept).
	{name: "12-repaired", golden: "12-half-migrated-bind-mount", servers: map[string]server{"postgres": official("app", "appdb")},
		clients: map[string]client{"application": {env: jdbcUser, probes: [][]string{jdbc("JDBC_URL")}, want: []string{socketOK("app", "appdb")}}}},
	// The known-bad input: single-$ $FactoryArg (UDS105) and a read-only
	// database mount (UDS107) fail on the engine with the errors README
	// quotes: pgjdbc's NoSuchMethodException, and "Read-only file system"
	// (here from the entrypoint's chown of /var/run/postgresql, which stops
	// the official image's entrypoint before postgres would fail on its lock file).
	{name: "12-known-bad-input", golden: "12-half-migrated-bind-mount", input: true,
		servers: map[string]server{"postgres": official("app", "appdb")},
		clients: map[string]client{"application": {env: map[string]string{"UDS_USER": "app", "UDS_PASSWORD": "pw", "UDSPROBE_WAIT": "20s"},
			probes: [][]string{jdbc("JDBC_URL")},
			want:   []string{"ERR\torg.postgresql.util.PSQLException: The SocketFactory class provided org.newsclub.net.unix.AFUNIXSocketFactory could not be instantiated. | caused by: java.lang.NoSuchMethodException: org.newsclub.net.unix.AFUNIXSocketFactory.<init>()"},
		}},
		serverLog: map[string]string{"postgres": "Read-only file system"}},
	// The server lives in an include: file; port 5433.
	{name: "13-include-db", golden: "13-include-db", clients: map[string]client{"api": {
		probes: [][]string{{"pgx", "DATABASE_URL"}, {"psql", "DATABASE_URL"}},
		want:   []string{socketOK("api", "api"), socketOK("api", "api")},
	}}},
	// "db" is a different server on each network: each client reaches the
	// one it reached over TCP (the users exist on that one only).
	{name: "14-network-scoped-names", golden: "14-network-scoped-names",
		servers: map[string]server{"db": official("api", "api"), "reporting": official("batch", "reports")},
		clients: map[string]client{
			"api":   {probes: [][]string{{"pgx", "DATABASE_URL"}}, want: []string{socketOK("api", "api")}},
			"batch": {probes: [][]string{{"pgx", "DATABASE_URL"}}, want: []string{socketOK("batch", "reports")}},
		}},
	// Socket directories set on the command line: users-db lists
	// /var/run/postgresql first and serves its client; orders-db lists only
	// /sockets, and its first-start init fails as UDS132 warns
	// (docker-library/postgres#935): psql looks in /var/run/postgresql.
	// users-db also lists /shared/pg, which no image has: postgres stops
	// with `could not create lock file "/shared/pg/.s.PGSQL.5432.lock"`
	// (seen on the engine, before and after the migration), so the test
	// gives it that directory.
	{name: "15-socket-dir-spellings", golden: "15-socket-dir-spellings",
		servers: map[string]server{"orders-db": official("orders", "orders"),
			"users-db": {env: official("users", "users").env, tmpfs: []string{"/shared/pg"}}},
		clients: map[string]client{
			"orders": {env: map[string]string{"UDSPROBE_WAIT": "15s"}, probes: [][]string{{"pgx", "DATABASE_URL"}}, want: []string{"ERR\t"}},
			"users":  {probes: [][]string{{"pgx", "PG_DSN"}, {"psql", "PG_DSN"}}, want: []string{socketOK("users", "users"), socketOK("users", "users")}},
		},
		serverLog: map[string]string{"orders-db": `connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed`}},
	// nginx -> app server (case 11): the app server stand-in listens where
	// the migrated unicorn.rb says, with unicorn's socket mode (0777); nginx
	// answers 200 through the socket, and 502 when its worker (www-data)
	// cannot write the socket (mode 0700, owned by root).
	{name: "11-nginx-unicorn", golden: "nginx-unicorn", clients: appServer("0777"),
		execs: []execProbe{{service: "rproxy", args: []string{"http", "http://127.0.0.1/"}, want: "HTTP 200"}}},
	{name: "11-nginx-wrong-socket-mode", golden: "nginx-unicorn", clients: appServer("0700"),
		execs: []execProbe{{service: "rproxy", env: []string{"UDSPROBE_WAIT=5s"}, args: []string{"http", "http://127.0.0.1/"}, want: "HTTP 502"}}},
	// Bitnami-like server: uid 1001, socket in /tmp (mounted over /tmp).
	{name: "rw-bitnami", golden: "rw-bitnami", clients: map[string]client{"app": {
		probes:   [][]string{{"pgx", "DATABASE_URL"}, {"psql", "DATABASE_URL"}},
		want:     []string{socketOK("app", "app"), socketOK("app", "app")},
		readOnly: "/var/run/postgresql",
	}}},
}

func appServer(mode string) map[string]client {
	return map[string]client{"app": {daemon: true, probes: [][]string{{"serve", "/run/app/app.sock", mode}}}}
}

func TestScenarios(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			needEngine(t)
			t.Parallel()
			sc.run(t)
		})
	}
}

func (sc scenario) dir(t *testing.T) string {
	if sc.golden != "" {
		return goldenProject(t, sc.golden, sc.input)
	}
	steps := sc.steps
	if steps == nil {
		steps = [][]string{{}}
	}
	return toolProject(t, sc.example, steps...)
}

func (sc scenario) run(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p := newProject(t, sc.dir(t))
	services, err := p.services(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range services {
		if s.Image != "" && !set(s.Build) {
			if err := tagImage(roleOf(s.Image), s.Image); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, s := range sc.servers {
		if len(s.databases) > 0 {
			writeFile(t, filepath.Join(p.dir, initScript(name)), []byte(initSQL(s.databases)))
		}
	}
	writeFile(t, filepath.Join(p.dir, overrideName), []byte(renderOverride(env.tag, services, sc.servers, sc.clients)))
	defer func() {
		if t.Failed() {
			out, _ := p.compose(context.Background(), "logs", "--no-color")
			t.Logf("docker compose logs:\n%s", tail(string(out), 80))
		}
	}()
	if _, err := p.compose(ctx, "up", "-d"); err != nil {
		t.Fatal(err)
	}
	var clients []string
	for _, name := range sortedKeys(sc.clients) {
		if !sc.clients[name].daemon {
			clients = append(clients, name)
		}
	}
	if err := p.waitExit(ctx, clients); err != nil {
		t.Fatal(err)
	}
	for _, name := range clients {
		sc.clients[name].check(ctx, t, p, name)
	}
	for _, e := range sc.execs {
		e.check(ctx, t, p)
	}
	for name, want := range sc.serverLog {
		if got := p.logs(ctx, name); !strings.Contains(got, want) {
			t.Errorf("%s's log lacks %q:\n%s", name, want, tail(got, 20))
		}
	}
}

func (c client) check(ctx context.Context, t *testing.T, p *project, name string) {
	var got []string
	for _, l := range strings.Split(p.logs(ctx, name), "\n") {
		if strings.HasPrefix(l, "OK\t") || strings.HasPrefix(l, "ERR\t") || strings.HasPrefix(l, "HTTP ") {
			got = append(got, l)
		}
	}
	if len(got) != len(c.want) {
		t.Errorf("%s: %d probe results, want %d: %q", name, len(got), len(c.want), got)
		return
	}
	for i, w := range c.want {
		if !strings.Contains(got[i], w) {
			t.Errorf("%s: probe %v:\n got %q\nwant %q", name, c.probes[i], got[i], w)
		} else {
			t.Logf("%s: %v: %q", name, c.probes[i], got[i])
		}
	}
	if c.readOnly != "" {
		ms, err := p.mounts(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ms, c.readOnly+"=ro") {
			t.Errorf("%s: no read-only mount at %s: %v", name, c.readOnly, ms)
		}
	}
}

func (e execProbe) check(ctx context.Context, t *testing.T, p *project) {
	args := []string{"exec", "-T"}
	for _, kv := range e.env {
		args = append(args, "-e", kv)
	}
	out, err := p.compose(ctx, append(append(args, e.service, "udsprobe"), e.args...)...)
	line := strings.TrimSpace(string(out))
	if !strings.Contains(line, e.want) {
		t.Errorf("%s: udsprobe %v: got %q (%v), want %q", e.service, e.args, line, err, e.want)
	} else {
		t.Logf("%s: udsprobe %v: %q", e.service, e.args, line)
	}
}
