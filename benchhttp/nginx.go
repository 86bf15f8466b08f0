package benchhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"
)

// NginxConfig is what RenderNginx needs: where nginx keeps its files, the
// two front ports and the two upstreams.
type NginxConfig struct {
	// Prefix is nginx's prefix directory (-p): pid file, error log and the
	// temp paths go there.
	Prefix string
	// TCPPort and SocketPort are the loopback ports of the server block
	// proxying over TCP and of the one proxying over the socket.
	TCPPort, SocketPort int
	// Backend is the upstream's "127.0.0.1:PORT"; BackendSocket its socket
	// file.
	Backend, BackendSocket string
	// Keepalive is the upstream keepalive pool per worker (nginx's
	// keepalive directive); 0 renders nginx's default proxying, a new
	// upstream connection per request (HTTP/1.0, Connection: close).
	Keepalive int
	// User is the user directive's value ("" renders none). nginx honours
	// it only when started as root; a root master's workers otherwise run
	// as nobody.
	User string
	// Listen is the fronts' address; "" means 127.0.0.1. ErrorLog is the
	// error log's path; "" means Prefix/error.log.
	Listen, ErrorLog string
}

// nginxTemplate is a complete, self-contained nginx.conf: nothing from
// /etc/nginx is included, every path nginx would write lies under the
// prefix, and nothing is logged per request (an access log would add the
// same disk write to both sides and only blur the difference).
var nginxTemplate = template.Must(template.New("nginx.conf").Parse(`# uds-migrate bench http: throwaway nginx, removed after the run.
{{if .User}}user {{.User}};
{{end -}}
daemon off;
worker_processes 1;
pid {{.Prefix}}/nginx.pid;
error_log {{.ErrorLog}} warn;

events {
    worker_connections 1024;
}

http {
    access_log off;
    client_body_temp_path {{.Prefix}}/client_body;
    proxy_temp_path {{.Prefix}}/proxy;
    fastcgi_temp_path {{.Prefix}}/fastcgi;
    uwsgi_temp_path {{.Prefix}}/uwsgi;
    scgi_temp_path {{.Prefix}}/scgi;
{{- if .Keepalive}}

    upstream app_tcp {
        server {{.Backend}};
        keepalive {{.Keepalive}};
    }

    upstream app_socket {
        server unix:{{.BackendSocket}};
        keepalive {{.Keepalive}};
    }
{{- end}}

    # Proxies to the backend over TCP.
    server {
        listen {{.Listen}}:{{.TCPPort}};
        location / {
{{- if .Keepalive}}
            proxy_pass http://app_tcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
{{- else}}
            proxy_pass http://{{.Backend}};
{{- end}}
        }
    }

    # Proxies to the same backend over its Unix socket.
    server {
        listen {{.Listen}}:{{.SocketPort}};
        location / {
{{- if .Keepalive}}
            proxy_pass http://app_socket;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
{{- else}}
            proxy_pass http://unix:{{.BackendSocket}}:/;
{{- end}}
        }
    }
}
`))

// RenderNginx returns the nginx.conf for c. It errors on a path nginx
// would misparse (whitespace, ';', quotes, braces) or a negative
// keepalive.
func RenderNginx(c NginxConfig) (string, error) {
	if c.Listen == "" {
		c.Listen = "127.0.0.1"
	}
	if c.ErrorLog == "" {
		c.ErrorLog = c.Prefix + "/error.log"
	}
	for _, p := range []string{c.Prefix, c.BackendSocket, c.Backend, c.User, c.Listen, c.ErrorLog} {
		if strings.ContainsAny(p, " \t\n;{}\"'#$") {
			return "", fmt.Errorf("nginx config: %q holds a character nginx would misparse", p)
		}
	}
	if c.Keepalive < 0 {
		return "", fmt.Errorf("keepalive %d: want ≥ 0", c.Keepalive)
	}
	var b bytes.Buffer
	if err := nginxTemplate.Execute(&b, c); err != nil {
		return "", err
	}
	return b.String(), nil
}

// FindNginx returns the nginx binary: bin when not empty (a path or a name
// on PATH), else nginx on PATH or in /usr/sbin (Debian's place, often
// missing from a non-root PATH). It errors when none is executable.
func FindNginx(bin string) (string, error) {
	if bin != "" {
		return exec.LookPath(bin)
	}
	if p, err := exec.LookPath("nginx"); err == nil {
		return p, nil
	}
	return exec.LookPath("/usr/sbin/nginx")
}

// NginxVersion returns "nginx/1.22.1" as `nginx -v` prints it.
func NginxVersion(bin string) (string, error) {
	out, err := exec.Command(bin, "-v").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s -v: %v: %s", bin, err, bytes.TrimSpace(out))
	}
	s := strings.TrimSpace(string(out))
	return strings.TrimPrefix(s, "nginx version: "), nil
}

// TestNginxConfig runs `nginx -t` on the config file conf with prefix
// prefix; the error holds nginx's own message.
func TestNginxConfig(ctx context.Context, bin, prefix, conf string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-t", "-q", "-p", prefix, "-e", filepath.Join(prefix, "error.log"), "-c", conf).CombinedOutput()
	if err != nil {
		return fmt.Errorf("nginx -t: %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// Nginx is a throwaway nginx process in front of a Backend.
type Nginx struct {
	// TCPURL and SocketURL are the front ends: "http://127.0.0.1:PORT/".
	// Both are reached over TCP; they differ in how nginx reaches the
	// backend.
	TCPURL, SocketURL string
	// Version is "nginx/1.22.1".
	Version string
	// Config is the rendered nginx.conf.
	Config string

	prefix string
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // the process's exit, valid after exited is closed
}

// StartNginx starts bin in the foreground (daemon off) with a rendered
// config in a new prefix directory under tempDir, proxying to b, and waits
// until both front ports accept connections (at most 10 s). Ports are
// chosen free just before the start; when another process takes one in
// between, it retries with new ports (3 attempts). keepalive is as in
// NginxConfig. As root, the workers run as root too ("user root"): nginx's
// default for a root master is nobody, which would need the socket's
// directory and the prefix's temp paths opened up to it; a throwaway
// benchmark has no use for that privilege drop.
//
// The process runs in its own process group, so a terminal's Ctrl-C
// reaches only uds-migrate, which then stops nginx in Close.
func StartNginx(ctx context.Context, bin string, b *Backend, keepalive int, tempDir string) (*Nginx, error) {
	version, err := NginxVersion(bin)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		n, err := startNginx(ctx, bin, b, keepalive, tempDir)
		if err == nil {
			n.Version = version
			return n, nil
		}
		lastErr = err
		if ctx.Err() != nil || !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	return nil, lastErr
}

func startNginx(ctx context.Context, bin string, b *Backend, keepalive int, tempDir string) (*Nginx, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	prefix, err := socketTempDir(tempDir, "uds-bench-nginx-")
	if err != nil {
		return nil, err
	}
	c := NginxConfig{
		Prefix: prefix, TCPPort: ports[0], SocketPort: ports[1],
		Backend: b.TCPAddr, BackendSocket: b.SocketPath, Keepalive: keepalive,
	}
	if os.Geteuid() == 0 {
		c.User = "root"
	}
	conf, err := RenderNginx(c)
	if err != nil {
		os.RemoveAll(prefix)
		return nil, err
	}
	confPath := filepath.Join(prefix, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		os.RemoveAll(prefix)
		return nil, err
	}
	n := &Nginx{
		TCPURL:    fmt.Sprintf("http://127.0.0.1:%d/", c.TCPPort),
		SocketURL: fmt.Sprintf("http://127.0.0.1:%d/", c.SocketPort),
		Config:    conf,
		prefix:    prefix,
		exited:    make(chan struct{}),
	}
	// -e: nginx opens its error log before it reads the config; the
	// compiled-in /var/log/nginx/error.log may not be writable.
	n.cmd = exec.Command(bin, "-p", prefix, "-e", filepath.Join(prefix, "error.log"), "-c", confPath)
	var out bytes.Buffer
	n.cmd.Stdout, n.cmd.Stderr = &out, &out
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := n.cmd.Start(); err != nil {
		os.RemoveAll(prefix)
		return nil, err
	}
	go func() { n.err = n.cmd.Wait(); close(n.exited) }()

	deadline := time.Now().Add(10 * time.Second)
	for _, port := range ports {
		for {
			conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
			if err == nil {
				conn.Close()
				break
			}
			select {
			case <-n.exited:
				msg := strings.TrimSpace(out.String())
				n.Close()
				return nil, fmt.Errorf("nginx exited at start (%v): %s", n.err, msg)
			case <-ctx.Done():
				n.Close()
				return nil, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				n.Close()
				return nil, fmt.Errorf("nginx did not listen on 127.0.0.1:%d within 10 s", port)
			}
		}
	}
	return n, nil
}

// ErrorLog returns the last 2 kB of nginx's error log: the place a 502
// explains itself ("connect() to unix:... failed (13: Permission
// denied)").
func (n *Nginx) ErrorLog() string {
	b, _ := os.ReadFile(filepath.Join(n.prefix, "error.log"))
	if len(b) > 2048 {
		b = b[len(b)-2048:]
	}
	return strings.TrimSpace(string(b))
}

// Close stops nginx (SIGTERM: fast shutdown; SIGKILL to the whole process
// group after 5 s) and removes the prefix directory. Safe to call twice.
func (n *Nginx) Close() error {
	if n.cmd != nil && n.cmd.Process != nil {
		select {
		case <-n.exited:
		default:
			_ = n.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-n.exited:
			case <-time.After(5 * time.Second):
				// Negative pid: the group, so workers go too.
				_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
				<-n.exited
			}
		}
	}
	return os.RemoveAll(n.prefix)
}

// freePorts returns k distinct loopback ports that were free a moment
// ago: the kernel picks them, the listeners close, nginx binds them.
func freePorts(k int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < k; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, errors.Join(fmt.Errorf("finding a free port"), err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
