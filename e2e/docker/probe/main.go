// Command udsprobe is the client of the engine tests (e2e/docker): it runs
// inside a test container, in place of the application a compose service
// would start, and connects with the migrated value that compose handed the
// container. Built static (CGO_ENABLED=0) on the host by scripts/engine.sh.
//
//	udsprobe pgx VAR                 pgx with $VAR (URI or keyword DSN; pgxpool's pool_* dropped); "-": the PG* environment
//	udsprobe psql VAR                psql with $VAR as its conninfo; "-": the PG* environment
//	udsprobe jdbc URLVAR USERVAR PASSVAR   pgjdbc + junixsocket (Probe.class) with those variables
//	udsprobe http URL                GET URL; prints "HTTP <status>"
//	udsprobe serve SOCKET MODE       HTTP server on a Unix socket with file mode MODE (octal)
//
// The connecting modes print one line in internal/probe/Probe.java's
// format: "OK\t1\t<current_user>\t<current_database()>\t<t|f: inet_client_addr() IS NULL>"
// or "ERR\t<error>", and exit 0 or 1. While the error looks transient (no
// socket yet, server starting or re-starting after its initialisation) they
// retry for $UDSPROBE_WAIT (a Go duration, default 90s); so does http
// while the answer is a 5xx (nginx may be up before the app server).
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

const query = "SELECT 1, current_user, current_database(), inet_client_addr() IS NULL"

// transient matches errors of a server that is not up yet (no socket file:
// pgx, psql and junixsocket each say so differently), or of the
// entrypoint's temporary socket-only server (which has not created
// POSTGRES_DB yet and is stopped right after: a JDBC connection caught by
// that stop fails writing, "Broken pipe").
var transient = regexp.MustCompile(`(?i)no such file or directory|connection refused|starting up|shutting down|database "[^"]*" does not exist|closed the connection unexpectedly|administrator command|EOF|connection reset|The connection attempt failed|Broken pipe|An I/O error occurred while sending to the backend`)

func main() {
	if len(os.Args) < 2 {
		fail("usage: udsprobe pgx|psql|jdbc|http|serve ...")
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "pgx":
		need(args, 1)
		retry(func() string { return viaPgx(value(args[0])) })
	case "psql":
		need(args, 1)
		retry(func() string { return viaPsql(value(args[0])) })
	case "jdbc":
		need(args, 3)
		retry(func() string { return viaJDBC(os.Getenv(args[0]), os.Getenv(args[1]), os.Getenv(args[2])) })
	case "http":
		need(args, 1)
		retry(func() string { return viaHTTP(args[0]) })
	case "serve":
		need(args, 2)
		serve(args[0], args[1])
	default:
		fail("unknown mode " + os.Args[1])
	}
}

func need(args []string, n int) {
	if len(args) != n {
		fail(fmt.Sprintf("want %d arguments, got %d", n, len(args)))
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "udsprobe: "+msg)
	os.Exit(2)
}

// value is $name, or "" (the PG* environment) for "-".
func value(name string) string {
	if name == "-" {
		return ""
	}
	v, ok := os.LookupEnv(name)
	if !ok {
		fmt.Println("ERR\tudsprobe: $" + name + " is not set")
		os.Exit(1)
	}
	return v
}

func retry(attempt func() string) {
	wait, err := time.ParseDuration(os.Getenv("UDSPROBE_WAIT"))
	if err != nil {
		wait = 90 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		line := attempt()
		again := transient.MatchString(line) || strings.HasPrefix(line, "HTTP 5")
		if strings.HasPrefix(line, "OK") || !again || time.Now().After(deadline) {
			fmt.Println(line)
			if strings.HasPrefix(line, "ERR") {
				os.Exit(1)
			}
			return
		}
		time.Sleep(time.Second)
	}
}

func viaPgx(conn string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(withoutPoolParams(conn))
	if err != nil {
		return "ERR\t" + oneLine(err.Error())
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "ERR\t" + oneLine(err.Error())
	}
	defer c.Close(ctx)
	var one int
	var user, db string
	var local bool
	if err := c.QueryRow(ctx, query).Scan(&one, &user, &db, &local); err != nil {
		return "ERR\t" + oneLine(err.Error())
	}
	return fmt.Sprintf("OK\t%d\t%s\t%s\t%s", one, user, db, map[bool]string{true: "t", false: "f"}[local])
}

// withoutPoolParams drops the pool_* query parameters of a URI, which
// pgxpool (what such an application runs) takes for itself; pgx.Connect
// would send them to the server as settings.
func withoutPoolParams(conn string) string {
	u, err := url.Parse(conn)
	if err != nil || u.RawQuery == "" || !strings.Contains(u.RawQuery, "pool_") {
		return conn
	}
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func viaPsql(conn string) string {
	args := []string{"-X", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", query}
	if conn != "" {
		args = append(args, conn)
	}
	out, err := exec.Command("psql", args...).CombinedOutput()
	if err != nil {
		return "ERR\t" + oneLine(string(out)+err.Error())
	}
	return "OK\t" + strings.TrimSpace(string(out))
}

// viaJDBC runs Probe.class (internal/probe/Probe.java, compiled on the host
// for Java 17) with Debian's pgjdbc and junixsocket jars; Debian's JRE finds
// junixsocket's native library in /usr/lib/<triplet>/jni.
func viaJDBC(url, user, password string) string {
	cp := "/opt/uds-probe:/usr/share/java/postgresql.jar:/usr/share/java/junixsocket-common.jar"
	out, err := exec.Command("java", "-cp", cp, "Probe", url, user, password).CombinedOutput()
	line := strings.TrimSpace(string(out))
	if err != nil || line == "" {
		return "ERR\t" + oneLine(line+" "+fmt.Sprint(err))
	}
	return line
}

func viaHTTP(url string) string {
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "ERR\t" + oneLine(err.Error())
	}
	resp.Body.Close()
	return "HTTP " + strconv.Itoa(resp.StatusCode)
}

// serve answers every request with 200 "ok" on a Unix socket whose mode is
// set explicitly, like an app server's umask would.
func serve(path, mode string) {
	m, err := strconv.ParseUint(mode, 8, 32)
	if err != nil {
		fail("mode: " + err.Error())
	}
	os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		fail(err.Error())
	}
	if err := os.Chmod(path, os.FileMode(m)); err != nil {
		fail(err.Error())
	}
	fmt.Printf("listening on %s mode %04o\n", path, m)
	err = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") }))
	fail(err.Error())
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
