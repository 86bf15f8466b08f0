package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// otherAccount is a local account that is neither root nor the server's,
// created with useradd when missing (CI runs as root on a fresh machine).
const otherAccount = "uds-pgtest-other"

// ensureOtherAccount returns otherAccount's uid and gid, creating it (a
// system account without a home or a login shell) when it is missing.
func ensureOtherAccount(t *testing.T) (uid, gid uint32) {
	t.Helper()
	u, err := user.Lookup(otherAccount)
	if err != nil {
		out, aerr := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", otherAccount).CombinedOutput()
		// Exit status 9: another test run created it meanwhile.
		if ee, ok := aerr.(*exec.ExitError); aerr != nil && !(ok && ee.ExitCode() == 9) {
			t.Fatalf("useradd %s: %v\n%s", otherAccount, aerr, out)
		}
		if u, err = user.Lookup(otherAccount); err != nil {
			t.Fatal(err)
		}
	}
	id, _ := strconv.Atoi(u.Uid)
	g, _ := strconv.Atoi(u.Gid)
	return uint32(id), uint32(g)
}

// psqlAs runs psql (libpq) as uid:gid with conninfo, password in
// PGPASSWORD when not empty, and returns its combined output.
func psqlAs(t *testing.T, uid, gid uint32, conninfo, password string) (string, error) {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql")
		if len(m) == 0 {
			t.Fatal("psql not found (apt-get install postgresql-client)")
		}
		psql = m[len(m)-1]
	}
	cmd := exec.Command(psql, "-X", "-w", "-A", "-t", "-d", conninfo, "-c", "SELECT current_user")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "PGCONNECT_TIMEOUT=10"}
	if password != "" {
		cmd.Env = append(cmd.Env, "PGPASSWORD="+password)
	}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestOtherAccountRefused logs in to a server as the --smoke and bench
// commands start it (Options without a password) from another local
// account, over the socket and over TCP, and is refused both ways; root,
// the caller, gets in both ways, and the other account gets in over TCP
// with the server's own password, so the refusals are the directory's and
// the password's, not a client that cannot run.
func TestOtherAccountRefused(t *testing.T) {
	requireServer(t)
	if os.Geteuid() != 0 {
		t.Skip("running a client as another account needs root (CI runs as root)")
	}
	uid, gid := ensureOtherAccount(t)
	ctx := context.Background()
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()

	server, err := user.Lookup(serverUser)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.Dir, s.SocketDir, s.SocketPath(), s.LogFile} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		want := os.FileMode(0o700)
		if p == s.LogFile {
			want = 0o600
		}
		if fi.Mode().Perm() != want || strconv.Itoa(int(st.Uid)) != server.Uid && p != s.LogFile {
			t.Errorf("%s: mode %v owner uid %d; want %v owned by %s (uid %s)", p, fi.Mode().Perm(), st.Uid, want, serverUser, server.Uid)
		}
	}
	if s.SuperPassword == "" || s.SuperPassword == "postgres" || len(s.SuperPassword) < 20 {
		t.Errorf("SuperPassword %q: want a random one", s.SuperPassword)
	}

	sock := fmt.Sprintf("host=%s port=%d user=%s dbname=postgres", s.SocketDir, s.Port, s.SuperUser)
	tcp := fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=postgres sslmode=disable", s.Port, s.SuperUser)
	if _, _, _, err := query(ctx, s.SocketDSN(s.SuperUser, "postgres")); err != nil {
		t.Fatalf("root over the socket: %v", err)
	}
	if _, _, _, err := query(ctx, s.TCPDSN(s.SuperUser, "postgres")); err != nil {
		t.Fatalf("root over TCP: %v", err)
	}

	out, err := psqlAs(t, uid, gid, sock, "")
	if err == nil || !strings.Contains(out, "Permission denied") {
		t.Errorf("%s over the socket: err=%v output %q; want a refusal (Permission denied)", otherAccount, err, out)
	}
	// The password before issue 25, none, and one a stranger might try.
	for _, pw := range []string{"postgres", "", "secret"} {
		out, err := psqlAs(t, uid, gid, tcp, pw)
		if err == nil || !strings.Contains(out, "password") {
			t.Errorf("%s over TCP with password %q: err=%v output %q; want a password refusal", otherAccount, pw, err, out)
		}
	}
	out, err = psqlAs(t, uid, gid, tcp, s.SuperPassword)
	if err != nil || out != s.SuperUser {
		t.Errorf("%s over TCP with the server's password: err=%v output %q; want %q (the account can run a client)", otherAccount, err, out, s.SuperUser)
	}
}
