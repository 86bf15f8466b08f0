package probe

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const (
	appUser = "probe_app"
	appPass = "probe-pw"
	appDB   = "probe_db"
)

// server returns the shared server with the app role and database made.
func server(t *testing.T) *pgtest.Server {
	t.Helper()
	s := pgtest.Shared(t)
	ctx := context.Background()
	if err := s.EnsureRole(ctx, appUser, appPass); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureDatabase(ctx, appDB, appUser); err != nil {
		t.Fatal(err)
	}
	return s
}

type driver struct {
	name string
	run  func(context.Context, string) (Result, error)
}

var libpqDrivers = []driver{{"pgx", Pgx}, {"psql", Psql}}

func wantSocket(t *testing.T, label string, r Result, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", label, err)
		return
	}
	if r.One != 1 || r.User != appUser || r.Database != appDB || !r.OverSocket {
		t.Errorf("%s: got %v; want %s@%s via socket (one=1)", label, r, appUser, appDB)
	}
}

func wantError(t *testing.T, label string, r Result, err error, substr string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: connected (%v); want an error containing %q", label, r, substr)
		return
	}
	if !strings.Contains(err.Error(), substr) {
		t.Errorf("%s: error %q; want it to contain %q", label, err, substr)
	}
}

// TestLibpqForms checks FACTS.md "libpq-style URIs and DSNs" with pgx and
// libpq (psql).
func TestLibpqForms(t *testing.T) {
	s := server(t)
	dir, port := s.SocketDir, fmt.Sprint(s.Port)
	ctx := context.Background()
	ok := []struct{ name, dsn string }{
		{"uri empty host + ?host=DIR", "postgres://" + appUser + "@/" + appDB + "?host=" + dir + "&port=" + port},
		{"uri postgresql:// scheme", "postgresql://" + appUser + "@/" + appDB + "?host=" + dir + "&port=" + port},
		{"uri percent-encoded host", "postgres://" + appUser + "@" + url.PathEscape(dir) + ":" + port + "/" + appDB},
		{"keyword dsn", "host=" + dir + " port=" + port + " dbname=" + appDB + " user=" + appUser},
		// ?host= wins over the authority's host in libpq and pgx alike.
		{"uri localhost + ?host=DIR", "postgres://" + appUser + "@localhost/" + appDB + "?host=" + dir + "&port=" + port},
		// libpq and pgx skip TLS on sockets whatever sslmode says.
		{"uri sslmode=require", "postgres://" + appUser + "@/" + appDB + "?host=" + dir + "&port=" + port + "&sslmode=require"},
		{"dsn sslmode=verify-full", "host=" + dir + " port=" + port + " dbname=" + appDB + " user=" + appUser + " sslmode=verify-full"},
	}
	for _, d := range libpqDrivers {
		for _, c := range ok {
			r, err := d.run(ctx, c.dsn)
			wantSocket(t, d.name+" "+c.name+" ("+c.dsn+")", r, err)
		}
	}

	// host naming the socket FILE: both append /.s.PGSQL.<port> to it and
	// get ENOTDIR (libpq: "Not a directory", pgx: "not a directory").
	file := "host=" + s.SocketPath() + " port=" + port + " dbname=" + appDB + " user=" + appUser
	for _, d := range libpqDrivers {
		r, err := d.run(ctx, file)
		wantError(t, d.name+" host=FILE", r, err, s.SocketPath()+"/.s.PGSQL."+port)
		if err != nil && !strings.Contains(strings.ToLower(err.Error()), "not a directory") {
			t.Errorf("%s host=FILE: %v; want ENOTDIR", d.name, err)
		}
		if err != nil {
			t.Logf("%s host=FILE: %v", d.name, err)
		}
	}

	// Controls: TCP with the password is a TCP session; without it, TCP
	// is refused (so a password-less success above cannot be TCP).
	for _, d := range libpqDrivers {
		r, err := d.run(ctx, s.TCPDSN(appUser, appDB))
		if err != nil || r.OverSocket || r.User != appUser {
			t.Errorf("%s TCP control: %v, %v; want %s via tcp", d.name, r, err, appUser)
		}
		nopw := "postgres://" + appUser + "@127.0.0.1:" + port + "/" + appDB + "?sslmode=disable"
		r, err = d.run(ctx, nopw)
		if err == nil {
			t.Errorf("%s TCP without password connected: %v", d.name, r)
		}
	}
}

// TestSymlinkedSocket: a directory holding only a symlink named
// .s.PGSQL.<port> to the real socket works as a socket directory. e2e relies
// on it to stand in for a container's /var/run/postgresql.
func TestSymlinkedSocket(t *testing.T) {
	s := server(t)
	dir := shortTempDir(t)
	if err := os.Symlink(s.SocketPath(), filepath.Join(dir, filepath.Base(s.SocketPath()))); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, d := range libpqDrivers {
		r, err := d.run(ctx, fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d", appUser, appDB, dir, s.Port))
		wantSocket(t, d.name+" via symlink", r, err)
	}
	if JDBCAvailable() == nil {
		r, err := JDBC(ctx, jdbcSocketURL("localhost", s.Port, filepath.Join(dir, filepath.Base(s.SocketPath()))), appUser, "")
		wantSocket(t, "jdbc via symlink", r, err)
	}
}

// TestReadOnlyMount: clients connect through a read-only bind mount of the
// socket directory (FACTS.md: "The app side may be read-only"). Needs
// CAP_SYS_ADMIN; skipped where mount is refused.
func TestReadOnlyMount(t *testing.T) {
	s := server(t)
	mnt := shortTempDir(t)
	if out, err := exec.Command("mount", "--bind", s.SocketDir, mnt).CombinedOutput(); err != nil {
		t.Skipf("bind mount not permitted here: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", mnt).CombinedOutput(); err != nil {
		t.Skipf("read-only remount not permitted here: %v: %s", err, out)
	}
	// Prove the mount really is read-only before trusting the result.
	if err := os.WriteFile(filepath.Join(mnt, "probe"), nil, 0o644); err == nil || !strings.Contains(err.Error(), "read-only file system") {
		t.Fatalf("writing into the ro mount: %v; want read-only file system", err)
	}
	ctx := context.Background()
	for _, d := range libpqDrivers {
		r, err := d.run(ctx, fmt.Sprintf("host=%s port=%d dbname=%s user=%s", mnt, s.Port, appDB, appUser))
		wantSocket(t, d.name+" via ro mount", r, err)
	}
	if err := JDBCAvailable(); err != nil {
		skipOrFail(t, err)
	}
	r, err := JDBC(ctx, jdbcSocketURL("localhost", s.Port, filepath.Join(mnt, filepath.Base(s.SocketPath()))), appUser, "")
	wantSocket(t, "jdbc via ro mount", r, err)
}

// shortTempDir is a temp dir with a short path: socket paths must stay under
// 108 bytes, which t.TempDir's test-named paths can exceed.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "prb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func skipOrFail(t *testing.T, err error) {
	t.Helper()
	if pgtest.Required() {
		t.Fatal(err)
	}
	t.Skip(err)
}

func TestPsqlMissingServerReportsLibpqError(t *testing.T) {
	if _, err := PsqlPath(); err != nil {
		skipOrFail(t, err)
	}
	dir := shortTempDir(t)
	_, err := Psql(context.Background(), "host="+dir+" port=5432 dbname=x user=x")
	if err == nil || !strings.Contains(err.Error(), "No such file or directory") {
		t.Fatalf("psql to an empty directory: %v; want libpq's No such file or directory", err)
	}
}
