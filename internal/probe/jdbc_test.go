package probe

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// factoryArg is junixsocket's factory class as pgjdbc must see it, after
// compose has turned `$$` into `$`.
const factoryArg = "org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg"

func jdbcSocketURL(host string, port int, socketFile string) string {
	return fmt.Sprintf("jdbc:postgresql://%s:%d/%s?socketFactory=%s&socketFactoryArg=%s", host, port, appDB, factoryArg, socketFile)
}

func requireJDBC(t *testing.T) {
	t.Helper()
	if err := JDBCAvailable(); err != nil {
		skipOrFail(t, err)
	}
}

// TestJDBCFacts checks FACTS.md's "JDBC (pgjdbc + junixsocket)" lines
// against the real pgjdbc 42.5.5 and junixsocket 2.6.1, in one JVM.
func TestJDBCFacts(t *testing.T) {
	requireJDBC(t)
	s := server(t)
	sock := s.SocketPath()
	withParams := func(params string) string { return jdbcSocketURL("localhost", s.Port, sock) + params }

	// A stale socket: a socket file nobody listens on any more.
	stale := filepath.Join(shortTempDir(t), ".s.PGSQL.5432")
	l, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()

	cases := []struct {
		name, url, user, password string
		// want is nil for a socket session as appUser, else substrings the
		// Java exception text must contain.
		want []string
		// errno, when set, is the text junixsocket puts after
		// "java.net.SocketException: ". junixsocket 2.6.1 leaves it empty
		// in about half of the runs (the same URL, run after run), so an
		// empty message is accepted too.
		errno string
	}{
		{name: "working form", url: withParams("")},
		{name: "other parameters kept", url: withParams("&ApplicationName=probe&connectTimeout=10")},
		{name: "JDBC port ignored", url: jdbcSocketURL("localhost", 1, sock)},
		{name: "host absent", url: fmt.Sprintf("jdbc:postgresql:///%s?socketFactory=%s&socketFactoryArg=%s", appDB, factoryArg, sock)},
		{name: "%24 for $", url: strings.Replace(withParams(""), "$", "%24", 1)},
		{name: "sslmode=prefer", url: withParams("&sslmode=prefer")},
		{name: "sslmode=allow", url: withParams("&sslmode=allow")},
		{name: "sslmode=disable", url: withParams("&sslmode=disable")},

		{name: "host 127.0.0.1", url: jdbcSocketURL("127.0.0.1", s.Port, sock),
			want: []string{"IllegalArgumentException: Can only connect to endpoints of type org.newsclub.net.unix.AFUNIXSocketAddress"}},
		{name: "host db", url: jdbcSocketURL("db", s.Port, sock),
			want: []string{"IllegalArgumentException: Can only connect to endpoints of type org.newsclub.net.unix.AFUNIXSocketAddress"}},
		{name: "host LOCALHOST", url: jdbcSocketURL("LOCALHOST", s.Port, sock),
			want: []string{"IllegalArgumentException: Can only connect to endpoints of type org.newsclub.net.unix.AFUNIXSocketAddress"}},
		{name: "directory as socketFactoryArg", url: jdbcSocketURL("localhost", s.Port, s.SocketDir),
			want: []string{"The connection attempt failed.", "java.net.SocketException"}, errno: "Connection refused"},
		{name: "sslmode=require", url: withParams("&sslmode=require"), want: []string{"PSQLException: The server does not support SSL."}},
		{name: "sslmode=verify-ca", url: withParams("&sslmode=verify-ca"), want: []string{"The server does not support SSL."}},
		{name: "sslmode=verify-full", url: withParams("&sslmode=verify-full"), want: []string{"The server does not support SSL."}},
		{name: "ssl=true", url: withParams("&ssl=true"), want: []string{"The server does not support SSL."}},
		// What compose leaves of an unescaped `$FactoryArg`.
		{name: "$FactoryArg interpolated away", url: strings.Replace(withParams(""), "$FactoryArg", "", 1),
			want: []string{"The SocketFactory class provided org.newsclub.net.unix.AFUNIXSocketFactory could not be instantiated.",
				"NoSuchMethodException: org.newsclub.net.unix.AFUNIXSocketFactory.<init>()"}},
		// Same as the junixsocket jar missing from the app's classpath.
		{name: "factory class absent", url: strings.Replace(withParams(""), "AFUNIXSocketFactory", "NoSuchFactory", 1),
			want: []string{"could not be instantiated", "ClassNotFoundException"}},
		{name: "socket file absent", url: jdbcSocketURL("localhost", s.Port, filepath.Join(s.SocketDir, ".s.PGSQL.1")),
			want: []string{"The connection attempt failed.", "java.net.SocketException"}, errno: "No such file or directory"},
		{name: "stale socket", url: jdbcSocketURL("localhost", s.Port, stale),
			want: []string{"The connection attempt failed.", "java.net.SocketException"}, errno: "Connection refused"},

		// Controls: plain TCP with the password is a TCP session; without
		// it the server refuses, so password-less successes above are
		// socket sessions.
		{name: "TCP control", url: fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/%s", s.Port, appDB), password: appPass},
		{name: "TCP without password", url: fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/%s", s.Port, appDB),
			want: []string{"no password was provided"}},
	}
	targets := make([]JDBCTarget, len(cases))
	for i, c := range cases {
		targets[i] = JDBCTarget{URL: c.url, User: appUser, Password: c.password}
	}
	out, err := JDBCBatch(context.Background(), targets)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		r, err := out[i].Result, out[i].Err
		label := c.name + " (" + c.url + ")"
		switch {
		case c.name == "TCP control":
			if err != nil || r.OverSocket || r.User != appUser || r.One != 1 {
				t.Errorf("%s: %v, %v; want %s via tcp", label, r, err, appUser)
			}
		case c.want == nil:
			wantSocket(t, label, r, err)
		default:
			for _, w := range c.want {
				wantError(t, label, r, err, w)
			}
			if err == nil {
				continue
			}
			t.Logf("%s: %v", c.name, err)
			if c.errno != "" {
				_, msg, _ := strings.Cut(err.Error(), "java.net.SocketException: ")
				if msg != "" && msg != c.errno {
					t.Errorf("%s: SocketException message %q; want %q or empty", label, msg, c.errno)
				}
			}
		}
	}
}

// TestJDBCNativeLibraryMissing confirms the error an app sees without
// junixsocket's native code, and that FindJDBC's override flag is what makes
// the library load when java.library.path lacks it.
func TestJDBCNativeLibraryMissing(t *testing.T) {
	requireJDBC(t)
	s := server(t)
	inv, err := FindJDBC()
	if err != nil {
		t.Fatal(err)
	}
	if inv.NativeLib == "" {
		t.Skipf("$%s set: no native library override to test", EnvJDBCClasspath)
	}
	src := filepath.Join(shortTempDir(t), "Probe.java")
	if err := os.WriteFile(src, probeJava, 0o644); err != nil {
		t.Fatal(err)
	}
	url := jdbcSocketURL("localhost", s.Port, s.SocketPath())
	run := func(override bool) string {
		args := append([]string{}, inv.Flags...)
		if override {
			args = append(args, "-Dorg.newsclub.net.unix.library.override="+inv.NativeLib)
		}
		args = append(args, "-Djava.library.path=/nonexistent", "-cp", inv.Classpath, src, url, appUser, "")
		out, err := exec.Command(inv.Java, args...).Output()
		if err != nil {
			t.Fatalf("java %v: %v", args, err)
		}
		return string(out)
	}
	without := run(false)
	if !strings.HasPrefix(without, "ERR") || !strings.Contains(without, "UnsatisfiedLinkError") {
		t.Errorf("without the native library: %q; want an UnsatisfiedLinkError", without)
	}
	if with := run(true); !strings.HasPrefix(with, "OK\t1\t"+appUser+"\t"+appDB+"\tt") {
		t.Errorf("with -Dorg.newsclub.net.unix.library.override: %q; want a socket session", with)
	}
}

func TestJDBCAvailableNamesPackages(t *testing.T) {
	t.Setenv(EnvJava, "/nonexistent/java")
	err := JDBCAvailable()
	if err == nil || !strings.Contains(err.Error(), "default-jdk-headless") {
		t.Fatalf("JDBCAvailable with no java: %v; want it to name default-jdk-headless", err)
	}
	if _, err := JDBC(context.Background(), "jdbc:postgresql://localhost/x", "u", ""); err == nil {
		t.Fatal("JDBC ran without java")
	}
}

func TestParseProbeOutput(t *testing.T) {
	out := "OK\t1\tu\\tser\tdb\\\\x\tt\nERR\tline one\\nline two\n"
	got, err := parseProbeOutput(out, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r := got[0].Result; got[0].Err != nil || r.One != 1 || r.User != "u\tser" || r.Database != `db\x` || !r.OverSocket {
		t.Errorf("OK line parsed as %+v, %v", r, got[0].Err)
	}
	if e, ok := got[1].Err.(*JDBCError); !ok || e.Text != "line one\nline two" {
		t.Errorf("ERR line parsed as %#v", got[1].Err)
	}
	if _, err := parseProbeOutput(out, 3); err == nil {
		t.Error("accepted 2 lines for 3 targets")
	}
	if _, err := parseProbeOutput("garbage\n", 1); err == nil {
		t.Error("accepted a garbage line")
	}
}
