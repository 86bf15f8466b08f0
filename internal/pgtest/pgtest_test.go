package pgtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// query connects with dsn and returns current_user, current_database() and
// whether the session came over the socket (inet_client_addr() IS NULL).
func query(ctx context.Context, dsn string) (user, db string, socket bool, err error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", "", false, err
	}
	defer conn.Close(ctx)
	err = conn.QueryRow(ctx, `SELECT current_user, current_database(), inet_client_addr() IS NULL`).Scan(&user, &db, &socket)
	return user, db, socket, err
}

func requireServer(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		if Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

func TestStartStop(t *testing.T) {
	requireServer(t)
	ctx := context.Background()
	start := time.Now()
	s, err := Start(ctx, Options{SuperPassword: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Start took %v (port %d, socket %s)", time.Since(start), s.Port, s.SocketPath())
	defer s.Stop()

	fi, err := os.Stat(s.SocketPath())
	if err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket file %s: %v, mode %v", s.SocketPath(), err, fi)
	}

	user, db, socket, err := query(ctx, s.SocketDSN("postgres", "postgres"))
	if err != nil || user != "postgres" || db != "postgres" || !socket {
		t.Fatalf("socket login: user=%q db=%q socket=%v err=%v", user, db, socket, err)
	}
	user, _, socket, err = query(ctx, s.TCPDSN("postgres", "postgres"))
	if err != nil || user != "postgres" || socket {
		t.Fatalf("TCP login with password: user=%q socket=%v err=%v", user, socket, err)
	}
	// TCP needs the password: this is what lets other tests tell the
	// transports apart.
	_, _, _, err = query(ctx, fmt.Sprintf("postgres://postgres:wrong@127.0.0.1:%d/postgres?sslmode=disable", s.Port))
	if err == nil || !strings.Contains(err.Error(), "password authentication failed") {
		t.Fatalf("TCP login with a wrong password: err=%v, want password authentication failed", err)
	}

	pid := s.cmd.Process.Pid
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Stop, %s: %v; want it removed", s.Dir, err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after Stop, postmaster pid %d: kill -0 gave %v; want ESRCH", pid, err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestEnsureRoleAndDatabase(t *testing.T) {
	s := Shared(t)
	ctx := context.Background()
	// Names and passwords that need quoting.
	role, pw, dbname := `app "user"`, `pa'ss word$`, "app-db"
	for i := 0; i < 2; i++ { // the second round proves idempotence
		if err := s.EnsureRole(ctx, role, pw); err != nil {
			t.Fatal(err)
		}
		if err := s.EnsureDatabase(ctx, dbname, role); err != nil {
			t.Fatal(err)
		}
	}
	user, db, socket, err := query(ctx, s.SocketDSN(role, dbname))
	if err != nil || user != role || db != dbname || !socket {
		t.Fatalf("socket: user=%q db=%q socket=%v err=%v", user, db, socket, err)
	}
	user, db, socket, err = query(ctx, s.TCPDSN(role, dbname))
	if err != nil || user != role || db != dbname || socket {
		t.Fatalf("TCP: user=%q db=%q socket=%v err=%v", user, db, socket, err)
	}
	var owner string
	conn, err := pgx.Connect(ctx, s.SocketDSN("postgres", "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1`, dbname).Scan(&owner); err != nil || owner != role {
		t.Fatalf("owner of %s: %q, %v; want %q", dbname, owner, err, role)
	}

	// A role made without a password reaches the socket only.
	if err := s.EnsureRole(ctx, "sockonly", ""); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := query(ctx, s.SocketDSN("sockonly", "postgres")); err != nil {
		t.Fatalf("password-less role over the socket: %v", err)
	}
	if _, _, _, err := query(ctx, s.TCPDSN("sockonly", "postgres")); err == nil {
		t.Fatal("password-less role logged in over TCP; want a password failure")
	}
}

func TestAvailableNamesWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvBinDir, dir)
	err := Available()
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "initdb") {
		t.Fatalf("Available with an empty %s: %v; want an error naming %s and initdb", EnvBinDir, err, dir)
	}
	if _, err := Start(context.Background(), Options{}); err == nil {
		t.Fatal("Start succeeded without binaries")
	}
}

// TestHelperServer is the body of the child process the crash tests start
// (this test binary, through Main): it starts a server, prints its Dir and
// postmaster pid, then waits to be killed.
func TestHelperServer(t *testing.T) {
	if os.Getenv("PGTEST_HELPER") != "main" {
		t.Skip("only runs as the child of TestSignalStopsServer")
	}
	s, err := Start(context.Background(), Options{})
	if err != nil {
		fmt.Println("ERR", err)
		t.Fatal(err)
	}
	fmt.Println("READY", s.Dir, s.cmd.Process.Pid)
	time.Sleep(time.Minute)
}

// startHelper runs this test binary as a child running TestHelperServer and
// returns it with the server's Dir and postmaster pid once it is ready.
func startHelper(t *testing.T) (*exec.Cmd, *strings.Builder, string, int) {
	t.Helper()
	requireServer(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$", "-test.v")
	cmd.Env = append(os.Environ(), "PGTEST_HELPER=main")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "READY" {
			pid, _ := strconv.Atoi(f[2])
			go func() {
				for sc.Scan() {
				}
			}()
			return cmd, &stderr, f[1], pid
		}
		if len(f) > 0 && f[0] == "ERR" {
			t.Fatalf("helper: %s", sc.Text())
		}
	}
	t.Fatalf("helper exited before its server was ready; stderr:\n%s", stderr.String())
	return nil, nil, "", 0
}

// waitGone waits up to 60 s for dir to vanish and pid to exit.
func waitGone(t *testing.T, dir string, pid int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, statErr := os.Stat(dir)
		killErr := syscall.Kill(pid, 0)
		if errors.Is(statErr, os.ErrNotExist) && errors.Is(killErr, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the owner died: %s stat=%v, postmaster %d kill -0=%v; want both gone", dir, statErr, pid, killErr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestReaperCleansUpAfterSIGKILL(t *testing.T) {
	cmd, _, dir, pid := startHelper(t)
	// SIGKILL runs no handler and no defer: only the reaper can clean up.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	waitGone(t, dir, pid)
}

func TestSignalStopsServer(t *testing.T) {
	cmd, stderr, dir, pid := startHelper(t)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("helper after SIGTERM: %v; want exit status 1 from Main's handler", err)
	}
	if !strings.Contains(stderr.String(), "stopping PostgreSQL servers") {
		t.Fatalf("helper stderr lacks Main's handler message:\n%s", stderr.String())
	}
	// Main's handler stops the server before exiting, so both are gone
	// already (the reaper would take up to a few seconds more).
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists right after the handler exited", dir)
	}
	waitGone(t, dir, pid)
}
