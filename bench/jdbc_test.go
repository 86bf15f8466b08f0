package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/internal/probe"
)

func needJDBC(t *testing.T) {
	t.Helper()
	if err := probe.JDBCAvailable(); err != nil {
		if pgtest.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// The socket URL is the form uds-migrate writes for a migrated Java
// service; user and password never enter a URL.
func TestJDBCURLs(t *testing.T) {
	tcp, _ := pgx.ParseConfig("postgres://app:pw-123@db.example:5433/appdb?sslmode=disable")
	sock := tcp.Copy()
	sock.Host = "/var/run/postgresql"
	urls := JDBCURLs(&Endpoints{TCP: tcp, Socket: sock}, Prepared)
	want := map[Transport]string{
		TCP:    "jdbc:postgresql://db.example:5433/appdb?sslmode=disable&prepareThreshold=1",
		Socket: "jdbc:postgresql://localhost:5433/appdb?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5433&sslmode=disable&prepareThreshold=1",
	}
	for tr, u := range want {
		if urls[tr] != u {
			t.Errorf("%s URL\n%s\nwant\n%s", tr, urls[tr], u)
		}
	}
}

// The JDBC client runs the bundled scripts through pgjdbc + junixsocket in
// every protocol mode, interleaved with pgx, with exact latencies.
func TestJDBCClientRuns(t *testing.T) {
	needJDBC(t)
	_, ep := existing(t)
	w, err := LoadWorkload("lookup-large", 2000)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{Prepared, Simple} {
		rep, err := Run(context.Background(), ep, Config{Workload: w, Plan: Plan{Rounds: 2, Duration: 300 * time.Millisecond, Warmup: 300 * time.Millisecond},
			Conns: 2, Mode: mode, Clients: []string{"jdbc", "pgx"}})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		c := rep.Clients[0]
		if c.Client != "jdbc" || len(rep.Comparisons) != 2 || rep.Comparisons[0].Baseline != "jdbc" {
			t.Fatalf("%s: report %+v", mode, rep)
		}
		for _, st := range c.Transports {
			if st.Queries < 3 || st.Latency == nil || st.Latency.P50 <= 0 {
				t.Errorf("%s %s: %+v", mode, st.Transport, st)
			}
		}
		var out bytes.Buffer
		rep.Render(&out, "text")
		if strings.Contains(out.String(), itPassword) {
			t.Errorf("report shows the password:\n%s", out.String())
		}
	}
}

// A socket directory without the socket fails the JDBC run with pgjdbc's
// error, naming the transport, instead of falling back.
func TestJDBCClientFailsOnAMissingSocket(t *testing.T) {
	needJDBC(t)
	srv, _ := existing(t)
	ep, err := Existing(srv.TCPDSN("bench_user", "postgres"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), ep, Config{Workload: selectOne(t), Plan: quick, Conns: 1, Mode: Prepared, Clients: []string{"jdbc"}})
	if err == nil || !strings.Contains(err.Error(), "jdbc over socket: ") || strings.Contains(err.Error(), itPassword) {
		t.Fatalf("error %v, want pgjdbc's socket failure", err)
	}
}

// A JVM that dies fails the run with its own error text (here a stand-in
// java that reads one line and exits), not a hang or a bare EOF.
func TestJDBCClientReportsAJVMFailure(t *testing.T) {
	needJDBC(t)
	java := filepath.Join(t.TempDir(), "java")
	if err := os.WriteFile(java, []byte("#!/bin/sh\nread line\necho 'Error: BenchJdbc died' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(probe.EnvJava, java)
	_, ep := existing(t)
	_, err := Run(context.Background(), ep, Config{Workload: selectOne(t), Plan: quick, Conns: 1, Mode: Prepared, Clients: []string{"jdbc"}})
	if err == nil || !strings.Contains(err.Error(), "the JVM") || !strings.Contains(err.Error(), "Error: BenchJdbc died") {
		t.Fatalf("error %v, want the JVM's failure with its stderr", err)
	}
}
