package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// runAs is the account initdb and postgres run as: nil when this process is
// not root (they run as ourselves).
type runAs struct {
	uid, gid int
}

func lookupRunAs() (*runAs, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(serverUser)
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root needs the %q account: %w", serverUser, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &runAs{uid: uid, gid: gid}, nil
}

// apply makes cmd run as the account, with no supplementary groups (an empty
// Groups list clears root's), in its own process group so that a terminal's
// Ctrl-C reaches only the test binary, whose handler or reaper then stops the
// server in order.
func (a *runAs) apply(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if a != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid), Groups: []uint32{}}
	}
}

func (a *runAs) chown(path string) error {
	if a == nil {
		return nil
	}
	return os.Chown(path, a.uid, a.gid)
}

// maxSocketPath is the longest socket path PostgreSQL accepts (sun_path is
// 108 bytes including the terminating NUL).
const maxSocketPath = 107

// makeDirs creates Dir and the socket directory inside it, both 0700 and
// owned by the server's account: postgres needs nothing more, root (the
// caller when the server runs as "postgres") passes any mode, and every
// other account is kept out of the socket, the data and the log.
func (s *Server) makeDirs(as *runAs) error {
	base := tempBase(as)
	dir, err := os.MkdirTemp(base, "pgtest-")
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	s.Dir = dir
	s.DataDir = filepath.Join(dir, "data")
	s.SocketDir = filepath.Join(dir, "s")
	s.LogFile = filepath.Join(dir, "postgres.log")
	fail := func(err error) error {
		os.RemoveAll(dir)
		return fmt.Errorf("pgtest: preparing %s: %w", dir, err)
	}
	if len(s.SocketDir)+len("/.s.PGSQL.65535") > maxSocketPath {
		return fail(fmt.Errorf("socket path would exceed %d bytes; set TMPDIR to a shorter directory", maxSocketPath))
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fail(err)
	}
	if err := os.Mkdir(s.SocketDir, 0o700); err != nil {
		return fail(err)
	}
	for _, p := range []string{dir, s.SocketDir} {
		if err := as.chown(p); err != nil {
			return fail(err)
		}
	}
	return nil
}

// tempBase picks the parent of Dir: os.TempDir(), unless the server account
// could not traverse it (a root-only TMPDIR such as /root/tmp) or it is too
// long for a socket path, in which case /tmp.
func tempBase(as *runAs) string {
	base := os.TempDir()
	if len(base) > 60 {
		return "/tmp"
	}
	if as == nil {
		return base
	}
	for p := base; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return "/tmp"
		}
		if p == filepath.Dir(p) {
			return base
		}
	}
}

// childEnv is the environment of initdb and postgres: fixed locale, and none
// of the caller's PG* variables (PGDATA, PGPORT) leaking into the cluster.
func childEnv() []string {
	return []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C", "TZ=UTC"}
}

func (s *Server) initdb(ctx context.Context, as *runAs) error {
	pwfile := filepath.Join(s.Dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.SuperPassword+"\n"), 0o600); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer os.Remove(pwfile)
	if err := as.chown(pwfile); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.BinDir, "initdb"),
		"--pgdata="+s.DataDir,
		"--username="+s.SuperUser,
		"--pwfile="+pwfile,
		// As in the official image: local (socket) lines trust, host lines
		// need a password, so a password-less login proves the socket.
		"--auth-local=trust",
		"--auth-host=scram-sha-256",
		"--encoding=UTF8",
		"--locale=C",
		"--no-sync",
	)
	cmd.Env = childEnv()
	cmd.Dir = s.Dir
	as.apply(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: initdb: %w\n%s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

var errPortTaken = errors.New("port taken")

func (s *Server) startPostgres(ctx context.Context, as *runAs, extra map[string]string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	s.Port = port
	settings := append([][2]string(nil), defaultSettings...)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		settings = append(settings, [2]string{k, extra[k]})
	}
	settings = append(settings,
		[2]string{"listen_addresses", s.Host},
		[2]string{"port", strconv.Itoa(port)},
		[2]string{"unix_socket_directories", s.SocketDir},
	)
	args := []string{"-D", s.DataDir}
	for _, kv := range settings {
		args = append(args, "-c", kv[0]+"="+kv[1])
	}

	logf, err := os.OpenFile(s.LogFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer logf.Close() // the child keeps its own descriptor
	// Not CommandContext: ctx bounds start-up only, not the server's life.
	cmd := exec.Command(filepath.Join(s.BinDir, "postgres"), args...)
	cmd.Env = childEnv()
	cmd.Dir = s.Dir
	cmd.Stdout, cmd.Stderr = logf, logf
	as.apply(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: starting postgres: %w", err)
	}
	s.cmd = cmd
	s.exited = make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx); err != nil {
		if s.signalAndWait(syscall.SIGQUIT, 5*time.Second) || s.signalAndWait(syscall.SIGKILL, 5*time.Second) {
			s.cmd = nil
		}
		tail := s.logTail()
		if strings.Contains(tail, "could not bind") || strings.Contains(tail, "Address already in use") {
			return fmt.Errorf("pgtest: %w: %d", errPortTaken, port)
		}
		return fmt.Errorf("pgtest: postgres did not become ready: %w\nserver log (%s):\n%s", err, s.LogFile, tail)
	}
	return nil
}

// freePort asks the kernel for an unused TCP port on 127.0.0.1. Another
// process may take it before postgres binds; startPostgres retries then.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls until the superuser can run a query over the socket and
// over TCP (with its password), or the postmaster exits, or ctx ends.
func (s *Server) waitReady(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("postgres exited (%v)", s.cmd.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("%w (last attempt: %v)", ctx.Err(), last)
		case <-tick.C:
		}
		if last = s.ping(ctx, s.SocketDSN(s.SuperUser, "postgres")); last != nil {
			continue
		}
		if last = s.ping(ctx, s.TCPDSN(s.SuperUser, "postgres")); last == nil {
			return nil
		}
	}
}

func (s *Server) ping(ctx context.Context, dsn string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.Ping(ctx)
}
