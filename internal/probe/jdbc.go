package probe

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

//go:embed Probe.java
var probeJava []byte

// Environment variables that override discovery (for JDKs and jars outside
// Debian's layout).
const (
	// EnvJava names the java launcher; default "java" on $PATH.
	EnvJava = "PROBE_JAVA"
	// EnvJDBCClasspath replaces the whole classpath (pgjdbc + junixsocket);
	// when set, no native library is looked for: the classpath must bring
	// its own (junixsocket-native-common) or java.library.path must have it.
	EnvJDBCClasspath = "PROBE_JDBC_CLASSPATH"
)

// Debian 12 locations: libpostgresql-jdbc-java ships pgjdbc, libjunixsocket-java
// the Java side of junixsocket (there is no junixsocket-core jar in Debian;
// junixsocket-common holds AFUNIXSocketFactory), and libjunixsocket-jni the
// native library, which junixsocket loads as "junixsocket-native-system"
// from java.library.path (Debian's JDK includes /usr/lib/<triplet>/jni).
var (
	jdbcJars = []string{"/usr/share/java/postgresql.jar", "/usr/share/java/junixsocket-common.jar"}
	// nativeGlob finds libjunixsocket-native-system.so for any architecture.
	nativeGlob = "/usr/lib/*/jni/libjunixsocket-native*.so"
)

// jvmFlags shorten JVM start-up by about a quarter (1.4 s -> 1.1 s here): a
// probe runs a handful of queries, so C2 and a parallel GC only cost time.
var jvmFlags = []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"}

// JDBCTarget is one connection attempt in a JDBCBatch.
type JDBCTarget struct {
	// URL is a jdbc:postgresql: URL, passed to DriverManager unchanged.
	URL string
	// User and Password go in the connection Properties; an empty Password
	// is not set at all.
	User, Password string
}

// JDBCOutcome is one target's result: Err is nil or a *JDBCError.
type JDBCOutcome struct {
	Result Result
	Err    error
}

// JDBCError is a connection or query failure reported by pgjdbc. Text is the
// Java exception chain, "Class: message" for each cause joined by
// " | caused by: ", e.g.
// "org.postgresql.util.PSQLException: The server does not support SSL.".
type JDBCError struct {
	Text string
}

func (e *JDBCError) Error() string { return "jdbc: " + e.Text }

// JDBCInvocation describes how the probe JVM is run: the java launcher, the
// classpath, and the JVM options (the junixsocket native library override
// among them). It is what a person would type to reproduce a probe.
type JDBCInvocation struct {
	Java      string
	Classpath string
	// NativeLib is the junixsocket JNI library passed with
	// -Dorg.newsclub.net.unix.library.override; empty with $PROBE_JDBC_CLASSPATH.
	NativeLib string
	Flags     []string
}

// Args returns the java command line before the source file name.
func (inv JDBCInvocation) Args() []string {
	args := append([]string(nil), inv.Flags...)
	if inv.NativeLib != "" {
		// Explicit, so a JDK whose java.library.path lacks Debian's jni
		// directory still finds it.
		args = append(args, "-Dorg.newsclub.net.unix.library.override="+inv.NativeLib)
	}
	return append(args, "-cp", inv.Classpath)
}

// FindJDBC locates java, the jars and the native library, or says which
// package provides what is missing.
func FindJDBC() (JDBCInvocation, error) {
	inv := JDBCInvocation{Flags: jvmFlags}
	java := os.Getenv(EnvJava)
	if java == "" {
		java = "java"
	}
	p, err := exec.LookPath(java)
	if err != nil {
		return inv, fmt.Errorf("jdbc probe: no java launcher (%v); apt-get install default-jdk-headless (Java 11+ runs single-file sources)", err)
	}
	inv.Java = p
	if cp := os.Getenv(EnvJDBCClasspath); cp != "" {
		inv.Classpath = cp
		return inv, nil
	}
	var missing []string
	for _, j := range jdbcJars {
		if _, err := os.Stat(j); err != nil {
			missing = append(missing, j)
		}
	}
	libs, _ := filepath.Glob(nativeGlob)
	if len(libs) == 0 {
		missing = append(missing, nativeGlob)
	} else {
		inv.NativeLib = libs[0]
	}
	if len(missing) > 0 {
		return inv, fmt.Errorf("jdbc probe: missing %s; apt-get install libpostgresql-jdbc-java libjunixsocket-java libjunixsocket-jni (or set $%s)",
			strings.Join(missing, ", "), EnvJDBCClasspath)
	}
	inv.Classpath = strings.Join(jdbcJars, string(os.PathListSeparator))
	return inv, nil
}

// JDBCAvailable is nil when JDBC and JDBCBatch can run: a java launcher, the
// pgjdbc and junixsocket jars and junixsocket's native library are present.
// Otherwise the error names what is missing and the Debian packages.
func JDBCAvailable() error {
	_, err := FindJDBC()
	return err
}

// JDBC connects with pgjdbc (plus junixsocket when the URL names its socket
// factory) in a fresh JVM and runs Query. A failure to connect or query is a
// *JDBCError holding Java's exception text; other errors mean the JVM could
// not run. Each call starts a JVM (about 1 s): use JDBCBatch for several.
func JDBC(ctx context.Context, url, user, password string) (Result, error) {
	out, err := JDBCBatch(ctx, []JDBCTarget{{URL: url, User: user, Password: password}})
	if err != nil {
		return Result{}, err
	}
	return out[0].Result, out[0].Err
}

// JDBCBatch runs every target in one JVM, in order, and returns one outcome
// per target. The error is non-nil only when the JVM itself failed (not
// found, did not compile the probe, crashed, or ctx ended); each target gets
// at most 60 s to connect (DriverManager login timeout).
func JDBCBatch(ctx context.Context, targets []JDBCTarget) ([]JDBCOutcome, error) {
	inv, err := FindJDBC()
	if err != nil {
		return nil, err
	}
	var in strings.Builder
	for _, t := range targets {
		for _, f := range []string{t.URL, t.User, t.Password} {
			if strings.ContainsAny(f, "\t\n\r") {
				return nil, fmt.Errorf("jdbc probe: target field %q contains a tab or newline", f)
			}
		}
		fmt.Fprintf(&in, "%s\t%s\t%s\n", t.URL, t.User, t.Password)
	}
	dir, err := os.MkdirTemp("", "probe-java-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "Probe.java")
	if err := os.WriteFile(src, probeJava, 0o644); err != nil {
		return nil, err
	}

	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute+time.Duration(len(targets))*time.Minute)
	defer cancel()
	args := append(inv.Args(), src, "-")
	cmd := exec.CommandContext(ctx, inv.Java, args...)
	cmd.Stdin = strings.NewReader(in.String())
	// junixsocket unpacks nothing with Debian's system library, but keep its
	// temp files (if any) out of shared places.
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("jdbc probe: %s %s: %w\n%s", inv.Java, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	outcomes, err := parseProbeOutput(string(out), len(targets))
	if err != nil {
		return nil, fmt.Errorf("jdbc probe: %w\nstderr:\n%s", err, strings.TrimSpace(stderr.String()))
	}
	return outcomes, nil
}

// parseProbeOutput reads Probe.java's output format (see the file's header).
func parseProbeOutput(out string, want int) ([]JDBCOutcome, error) {
	var res []JDBCOutcome
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		for i := range f {
			f[i] = unescape(f[i])
		}
		switch {
		case len(f) == 5 && f[0] == "OK":
			res = append(res, JDBCOutcome{Result: Result{One: atoi(f[1]), User: f[2], Database: f[3], OverSocket: f[4] == "t"}})
		case len(f) == 2 && f[0] == "ERR":
			res = append(res, JDBCOutcome{Err: &JDBCError{Text: f[1]}})
		default:
			return nil, fmt.Errorf("unexpected probe line %q", sc.Text())
		}
	}
	if len(res) != want {
		return nil, fmt.Errorf("got %d result lines for %d targets", len(res), want)
	}
	return res, nil
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
