// Package pgtest starts a throwaway PostgreSQL server from the machine's own
// binaries (Debian's postgresql package), for tests and for the smoke
// benchmark's default target.
//
// A server listens on TCP at 127.0.0.1 on a free port and on a Unix-domain
// socket in its own temporary directory. Authentication mirrors the official
// docker image's split: socket connections are trusted (any role, no
// password), TCP connections need the role's password (scram-sha-256). A test
// can therefore prove which transport a client used: a password-less login
// that succeeds can only have come over the socket.
//
// Only the server's account and root reach it (issue 25, High 3): the
// server's directory and its socket directory are 0700 and owned by the
// account postgres runs as (this process's, or "postgres" when this process
// is root), the socket file is 0700 (unix_socket_permissions), and the
// bootstrap superuser's TCP password is random per server unless
// Options.SuperPassword names one. Another local account can neither open
// the socket (EACCES on the directory) nor guess the TCP password.
//
// Every server lives in one temporary directory that Stop removes. A reaper
// child process watches a pipe from this process and, if this process dies
// without calling Stop (panic, os.Exit, SIGKILL), stops the server and
// removes the directory itself.
//
// Start and Stop do not need the testing package; Shared and Main (shared.go)
// are the test-binary helpers built on them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configures Start. The zero value is ready to use.
type Options struct {
	// BinDir holds initdb and postgres; empty means BinDir().
	BinDir string
	// SuperUser is the bootstrap superuser's name; empty means "postgres".
	SuperUser string
	// SuperPassword is the bootstrap superuser's password, needed over TCP
	// only; empty means a random one (24 characters from crypto/rand),
	// which Server.SuperPassword holds.
	SuperPassword string
	// Settings are extra server settings, passed as `postgres -c key=value`
	// after the defaults (so they win). Keys that Start owns (port,
	// listen_addresses, unix_socket_directories) are overwritten.
	Settings map[string]string
	// StartTimeout bounds initdb plus server start-up; zero means 120 s,
	// generous because initdb has taken over 60 s on a loaded 2-core
	// machine. The context passed to Start bounds it too.
	StartTimeout time.Duration
}

// Server is a running throwaway PostgreSQL server. Its fields are read-only.
type Server struct {
	// Host is the TCP address the server listens on: always "127.0.0.1".
	Host string
	// Port is the TCP port, and the number in the socket file's name
	// (.s.PGSQL.<Port>).
	Port int
	// SocketDir is the absolute path of the directory holding the socket
	// file; what libpq calls the host of a socket connection.
	SocketDir string
	// SuperUser and SuperPassword are the bootstrap superuser's credentials.
	SuperUser     string
	SuperPassword string
	// DataDir is the cluster's data directory (inside Dir).
	DataDir string
	// Dir is the temporary directory holding everything the server wrote;
	// Stop removes it.
	Dir string
	// LogFile is the server's stderr/stdout log (inside Dir).
	LogFile string
	// BinDir is where initdb and postgres were run from.
	BinDir string

	cmd    *exec.Cmd
	exited chan struct{} // closed when the postmaster has exited
	reaper *reaper

	mu        sync.Mutex
	passwords map[string]string // role -> password, for TCPDSN

	stopOnce sync.Once
	stopErr  error
}

// defaultSettings trade durability for speed: a throwaway cluster never
// needs to survive a crash.
var defaultSettings = [][2]string{
	{"fsync", "off"},
	{"synchronous_commit", "off"},
	{"full_page_writes", "off"},
	{"max_connections", "100"},
	{"shared_buffers", "32MB"},
	// Owner only: the socket is trusted, so whoever opens it is any role,
	// superuser included (the official image's 0777 would hand that to
	// every local account). Root still connects (it bypasses file modes).
	{"unix_socket_permissions", "0700"},
	{"log_min_messages", "warning"},
	{"logging_collector", "off"},
}

// portAttempts bounds retries when another process takes the free port
// between our probe and the server's bind.
const portAttempts = 3

// Start creates a fresh cluster with initdb and starts postgres on it,
// returning once the server accepts connections on both the socket and TCP
// (about 1.5 s on an idle 2-core machine). On error nothing is left running and
// the temporary directory is removed; the error includes the tail of the
// server log when the server itself failed.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 120 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	bin := opts.BinDir
	if bin == "" {
		var err error
		if bin, err = BinDir(); err != nil {
			return nil, err
		}
	}
	as, err := lookupRunAs()
	if err != nil {
		return nil, err
	}
	if opts.SuperPassword == "" {
		if opts.SuperPassword, err = randomPassword(); err != nil {
			return nil, err
		}
	}
	s := &Server{
		Host:          "127.0.0.1",
		SuperUser:     orDefault(opts.SuperUser, "postgres"),
		SuperPassword: opts.SuperPassword,
		BinDir:        bin,
		passwords:     map[string]string{},
	}
	s.passwords[s.SuperUser] = s.SuperPassword
	if err := s.makeDirs(as); err != nil {
		return nil, err
	}
	if s.reaper, err = startReaper(s.Dir); err != nil {
		os.RemoveAll(s.Dir)
		return nil, err
	}
	if err := s.initdb(ctx, as); err != nil {
		s.abort()
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		err = s.startPostgres(ctx, as, opts.Settings)
		if err == nil {
			break
		}
		if attempt == portAttempts || !errors.Is(err, errPortTaken) {
			s.abort()
			return nil, err
		}
	}
	register(s)
	return s, nil
}

// SocketPath returns the socket file's path: SocketDir/.s.PGSQL.<Port>.
func (s *Server) SocketPath() string {
	return filepath.Join(s.SocketDir, ".s.PGSQL."+strconv.Itoa(s.Port))
}

// TCPDSN returns a libpq URI reaching database db as user over TCP, e.g.
// "postgres://app:secret@127.0.0.1:41234/appdb?sslmode=disable". The
// password is the one given to EnsureRole (or SuperPassword); for a role this
// Server did not create it is omitted, and the connection fails password
// authentication, which is the point of a TCP-versus-socket check.
func (s *Server) TCPDSN(user, db string) string {
	s.mu.Lock()
	pw, ok := s.passwords[user]
	s.mu.Unlock()
	u := &url.URL{Scheme: "postgres", Host: net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), Path: "/" + db}
	if ok {
		u.User = url.UserPassword(user, pw)
	} else {
		u.User = url.User(user)
	}
	u.RawQuery = "sslmode=disable"
	return u.String()
}

// SocketDSN returns a libpq URI reaching database db as user over the Unix
// socket, in the portable empty-host form
// "postgres://app@/appdb?host=%2Ftmp%2Fpgtest-...%2Fs&port=41234". No
// password is needed: socket connections are trusted.
func (s *Server) SocketDSN(user, db string) string {
	u := &url.URL{Scheme: "postgres", User: url.User(user), Path: "/" + db}
	u.RawQuery = url.Values{"host": {s.SocketDir}, "port": {strconv.Itoa(s.Port)}}.Encode()
	return u.String()
}

// Stop shuts the server down (fast shutdown, escalating to SIGQUIT then
// SIGKILL after 10 s and 5 s) and removes Dir. It is safe to call more than
// once and from several goroutines; later calls return the first result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		unregister(s)
		s.stopErr = s.stop()
	})
	return s.stopErr
}

func (s *Server) stop() error {
	var errs []error
	if s.cmd != nil && s.cmd.Process != nil {
		if !s.signalAndWait(syscall.SIGINT, 10*time.Second) &&
			!s.signalAndWait(syscall.SIGQUIT, 5*time.Second) &&
			!s.signalAndWait(syscall.SIGKILL, 5*time.Second) {
			errs = append(errs, fmt.Errorf("pgtest: postgres (pid %d) did not exit", s.cmd.Process.Pid))
		}
	}
	if err := os.RemoveAll(s.Dir); err != nil {
		errs = append(errs, fmt.Errorf("pgtest: removing %s: %w", s.Dir, err))
	}
	if s.reaper != nil {
		s.reaper.release()
	}
	return errors.Join(errs...)
}

// abort is Stop for a server that never became ready.
func (s *Server) abort() {
	if err := s.stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}

// signalAndWait reports whether the postmaster exited within d of sig.
func (s *Server) signalAndWait(sig syscall.Signal, d time.Duration) bool {
	select {
	case <-s.exited:
		return true
	default:
	}
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// logTail returns the last few lines of the server log, for error messages.
func (s *Server) logTail() string {
	b, err := os.ReadFile(s.LogFile)
	if err != nil || len(b) == 0 {
		return "(empty server log)"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return strings.Join(lines, "\n")
}

// randomPassword returns 24 characters of base64url from 18 random bytes
// (144 bits).
func randomPassword() (string, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("pgtest: generating a password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
