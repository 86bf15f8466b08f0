package benchhttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// TransportHeader is the response header the embedded backend sets to the
// listener that served the request: "tcp" or "unix". It travels through
// nginx unchanged, so the load generator can prove that the socket server
// block really reached the backend over the socket, and fail rather than
// measure a misrouted proxy.
const TransportHeader = "X-Uds-Bench-Transport"

// Body is the embedded backend's response to every request: small (64
// bytes) so that the measurement is dominated by the transport and the
// proxy, not by copying a payload.
const Body = "uds-migrate bench http: the same small response on both sides.\n"

// Backend is the embedded HTTP server: one handler, served on a loopback
// TCP port and on a Unix socket. Close stops both and removes the socket's
// directory.
type Backend struct {
	// TCPAddr is "127.0.0.1:PORT".
	TCPAddr string
	// SocketPath is the socket file, mode 0666 in a directory of mode 0755
	// (an nginx worker running as another user must connect: FACTS.md,
	// "nginx in front of an app server").
	SocketPath string

	dir     string
	servers []*http.Server
}

// StartBackend starts the backend with its socket in a new directory under
// tempDir ("" means os.TempDir(), or /tmp when that path is too long for a
// socket address: Linux allows 107 bytes). It errors when a listener cannot
// be opened; nothing is left behind then.
func StartBackend(tempDir string) (*Backend, error) {
	dir, err := socketTempDir(tempDir, "uds-bench-http-")
	if err != nil {
		return nil, err
	}
	b := &Backend{SocketPath: filepath.Join(dir, "app.sock"), dir: dir}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	ul, err := net.Listen("unix", b.SocketPath)
	if err != nil {
		tl.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	if err := os.Chmod(b.SocketPath, 0o666); err != nil {
		tl.Close()
		ul.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	b.TCPAddr = tl.Addr().String()
	for _, s := range []struct {
		l    net.Listener
		name string
	}{{tl, "tcp"}, {ul, "unix"}} {
		srv := &http.Server{Handler: Handler(s.name), ReadHeaderTimeout: 10 * time.Second}
		b.servers = append(b.servers, srv)
		// Serve returns ErrServerClosed after Shutdown: nothing to report.
		go func(l net.Listener) { _ = srv.Serve(l) }(s.l)
	}
	return b, nil
}

// Handler answers every request with Body and TransportHeader set to
// transport ("tcp" or "unix": the listener it serves).
func Handler(transport string) http.Handler {
	length := strconv.Itoa(len(Body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set(TransportHeader, transport)
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", length)
		_, _ = w.Write([]byte(Body))
	})
}

// Close stops both listeners (in-flight requests get up to 2 s) and removes
// the socket directory. It is safe to call more than once.
func (b *Backend) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var errs []error
	for _, s := range b.servers {
		if err := s.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	b.servers = nil
	if err := os.RemoveAll(b.dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// maxSocketPath is the longest socket path Linux accepts (sun_path is 108
// bytes including the terminating NUL).
const maxSocketPath = 107

// socketTempDir makes a 0755 temporary directory whose socket paths (up to
// 32 bytes of file name) fit in a socket address.
func socketTempDir(base, pattern string) (string, error) {
	if base == "" {
		base = os.TempDir()
	}
	if len(base)+len(pattern)+12+32 > maxSocketPath {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, pattern)
	if err != nil {
		return "", err
	}
	// MkdirTemp makes 0700: an nginx worker running as nobody could not
	// reach the socket inside.
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("temporary directory: %w", err)
	}
	return dir, nil
}
