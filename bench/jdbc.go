package bench

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uds-migrate/uds-migrate/internal/probe"
)

//go:embed BenchJdbc.java
var benchJdbcJava []byte

// JDBCClient runs a Script through pgjdbc, and through junixsocket for the
// socket, in one JVM for the whole bench (BenchJdbc.java, started by the
// JDK's source launcher with the jars internal/probe finds: Debian's
// libpostgresql-jdbc-java, libjunixsocket-java, libjunixsocket-jni). The
// socket URL is the one uds-migrate writes for a migrated Java service:
// jdbc:postgresql://localhost:PORT/DB?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=DIR/.s.PGSQL.PORT.
// Every query is timed in the JVM (System.nanoTime), so Samples carry
// exact latencies, like pgx's.
type JDBCClient struct {
	// URLs are the pgjdbc URLs per transport; user and password travel in
	// the connection Properties, never in a URL.
	URLs map[Transport]string

	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr lockedBuffer // the JVM's stderr, for errors: never the terminal
	// onClose, if set, runs after the JVM is stopped (a container's
	// removal).
	onClose func()
}

// lockedBuffer is a bytes.Buffer written by the JVM's stderr copier and
// read by Run.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return tail(l.b.Bytes(), 10)
}

// Name implements Client.
func (*JDBCClient) Name() string { return "jdbc" }

// JDBCModeParams are the pgjdbc URL parameters that send what pgbench -M
// sends (https://jdbc.postgresql.org/documentation/use/): prepared is a
// server-side named statement from the first execution
// (prepareThreshold=1), extended the unnamed statement every time
// (prepareThreshold=0), simple the simple query protocol with the values
// inlined (preferQueryMode=simple).
var JDBCModeParams = map[Mode]string{
	Prepared: "prepareThreshold=1",
	Extended: "prepareThreshold=0",
	Simple:   "preferQueryMode=simple",
}

// JDBCURLs returns the pgjdbc URLs for ep: TCP to its host and port (TLS
// as pgx settled it: sslmode=require or disable), and the junixsocket
// form for the socket.
func JDBCURLs(ep *Endpoints, m Mode) map[Transport]string {
	tcp, sock := ep.TCP, ep.Socket
	ssl := "sslmode=disable"
	if tcp.TLSConfig != nil {
		ssl = "sslmode=require"
	}
	params := JDBCModeParams[m]
	file := strings.TrimSuffix(sock.Host, "/") + "/.s.PGSQL." + strconv.Itoa(int(sock.Port))
	return map[Transport]string{
		TCP: fmt.Sprintf("jdbc:postgresql://%s:%d/%s?%s&%s", jdbcHost(tcp.Host), tcp.Port, tcp.Database, ssl, params),
		Socket: fmt.Sprintf("jdbc:postgresql://localhost:%d/%s?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=%s&sslmode=disable&%s",
			sock.Port, sock.Database, file, params),
	}
}

func jdbcHost(h string) string {
	if strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	return h
}

// NewJDBCClient starts the JVM with w's script (which the in-process
// interpreter must accept) against ep, conns connections per run, writing
// the program to dir. Close stops the JVM.
func NewJDBCClient(w *Workload, ep *Endpoints, conns int, m Mode, dir string) (*JDBCClient, error) {
	inv, err := probe.FindJDBC()
	if err != nil {
		return nil, fmt.Errorf("--client jdbc: %w", err)
	}
	src := filepath.Join(dir, "BenchJdbc.java")
	if err := os.WriteFile(src, benchJdbcJava, 0o644); err != nil {
		return nil, err
	}
	// The default JIT, not the probe's quick-start flags: a bench runs
	// long enough for C2 to matter, and the warm-up run pays for it.
	inv.Flags = nil
	cmd := exec.Command(inv.Java, append(inv.Args(), src)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	c, err := startJDBC(cmd, JDBCURLs(ep, m), ep.TCP.User, ep.TCP.Password, conns, w)
	if err != nil {
		return nil, fmt.Errorf("--client jdbc: %w", err)
	}
	return c, nil
}

// startJDBC starts cmd, a JVM running BenchJdbc.java wherever it runs (here
// or in a container), and hands it the URLs, credentials and w's script on
// its stdin: the password never appears on a command line.
func startJDBC(cmd *exec.Cmd, urls map[Transport]string, user, password string, conns int, w *Workload) (*JDBCClient, error) {
	c := &JDBCClient{URLs: urls, cmd: cmd}
	c.cmd.Stderr = &c.stderr
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	lines := []string{
		"url\ttcp\t" + b64(c.URLs[TCP]), "url\tsocket\t" + b64(c.URLs[Socket]),
		"user\t" + b64(user), "password\t" + b64(password), "conns\t" + strconv.Itoa(conns),
	}
	for k, v := range w.Defines {
		lines = append(lines, fmt.Sprintf("define\t%s\t%d", k, v))
	}
	lines = append(lines, w.Script.jdbcProgram(w.Defines, b64)...)
	if _, err := io.WriteString(c.stdin, strings.Join(lines, "\n")+"\n"); err != nil {
		c.Close()
		return nil, fmt.Errorf("the JVM did not start: %w\n%s", err, c.stderr.tail())
	}
	return c, nil
}

// Run implements Client. The JVM opens the connections, checks the server
// saw transport t (inet_client_addr() IS NULL exactly on a socket), runs
// one untimed pass, then the script for d.
func (c *JDBCClient) Run(ctx context.Context, t Transport, d time.Duration) (Sample, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.stdin, "run\t%s\t%d\n", t, d.Nanoseconds()); err != nil {
		c.Close()
		return Sample{}, fmt.Errorf("jdbc: the JVM is gone: %w\n%s", err, c.stderr.tail())
	}
	type reply struct {
		line string
		err  error
	}
	ch := make(chan reply, 1)
	go func() {
		line, err := c.out.ReadString('\n')
		ch <- reply{line, err}
	}()
	var r reply
	select {
	case r = <-ch:
	case <-ctx.Done():
		c.Close()
		return Sample{}, ctx.Err()
	}
	if r.err != nil {
		c.Close()
		return Sample{}, fmt.Errorf("jdbc: the JVM stopped: %w\n%s", r.err, c.stderr.tail())
	}
	return parseJDBCRun(t, strings.TrimSpace(r.line))
}

// parseJDBCRun reads "ok QUERIES ELAPSED_NS LAT_NS..." or "err MESSAGE".
func parseJDBCRun(t Transport, line string) (Sample, error) {
	if msg, ok := strings.CutPrefix(line, "err "); ok {
		return Sample{}, fmt.Errorf("jdbc over %s: %s", t, msg)
	}
	f := strings.Fields(line)
	if len(f) < 3 || f[0] != "ok" {
		return Sample{}, fmt.Errorf("jdbc: unexpected answer %q", oneLine(line))
	}
	n, err1 := strconv.ParseInt(f[1], 10, 64)
	el, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || int64(len(f)-3) != n {
		return Sample{}, fmt.Errorf("jdbc: malformed answer %q", oneLine(line))
	}
	s := Sample{Transport: t, Queries: n, Elapsed: time.Duration(el), Latencies: make([]time.Duration, n)}
	var sum time.Duration
	for i := range s.Latencies {
		v, err := strconv.ParseInt(f[3+i], 10, 64)
		if err != nil {
			return Sample{}, fmt.Errorf("jdbc: malformed latency %q", f[3+i])
		}
		s.Latencies[i] = time.Duration(v)
		sum += s.Latencies[i]
	}
	if n > 0 {
		s.MeanLatency = sum / time.Duration(n)
	}
	return s, nil
}

// Close stops the JVM (quit, then kill if it lingers).
func (c *JDBCClient) Close() error {
	if c.cmd == nil || c.cmd.Process == nil {
		return nil
	}
	io.WriteString(c.stdin, "quit\n")
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
	c.cmd = nil
	if c.onClose != nil {
		c.onClose()
	}
	return nil
}
