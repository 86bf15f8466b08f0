package e2e

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// TestNginxGoldens proves the nginx goldens (testdata/script/nginx-*.txtar)
// with the real nginx: each nginx configuration file of an archive is run
// twice, as written (the backend on TCP) and as the golden expects it
// migrated (the backend on the rewritten Unix socket path, mapped into a
// temp dir), and every location must answer the same status and body both
// times, at least one of them a 200 from the backend.
//
// nginx runs as a throwaway process: its own prefix, pid file, error log
// and temp paths in a temp dir, listening on a free loopback port. As root
// its worker runs as nobody, like the non-root worker (uid 101) of the
// official image, so the socket's permissions matter as they do there; a
// socket left at mode 0755 must then fail with "Permission denied" (the
// reason for finding UDS301).
func TestNginxGoldens(t *testing.T) {
	bin := nginxBinary(t)
	files, err := filepath.Glob("../testdata/script/proxy/nginx-*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no nginx goldens: %v", err)
	}
	proved := 0
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, conf := range nginxConfs(ar) {
			name := strings.TrimSuffix(filepath.Base(file), ".txtar") + "/" + conf.name
			t.Run(name, func(t *testing.T) {
				proveConf(t, bin, conf)
				proved++
			})
		}
	}
	if proved == 0 {
		t.Fatal("no nginx configuration in the goldens was proved")
	}
}

// nginxBinary finds nginx (Debian puts it in /usr/sbin, often not on a
// user's PATH), or skips: fails instead when tools are required (CI).
func nginxBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	msg := "nginx not installed (Debian: apt-get install nginx); the nginx end-to-end proof did not run"
	if pgtest.Required() {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// confPair is one nginx file of a golden: as written and as migrated,
// with the compose service names it may name.
type confPair struct {
	name          string
	before, after string
	services      []string
}

// nginxConfs returns the nginx configurations an archive migrates: the
// .conf files of one directory together (an upstream in one file, its
// server block in another, as nginx includes conf.d/*.conf), as written
// and as expected. Only proxy_pass/upstream setups are proved: the
// backend here speaks HTTP, not uwsgi or FastCGI.
func nginxConfs(ar *txtar.Archive) []confPair {
	in, want := map[string]string{}, map[string]string{}
	var services []string
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "want/"); ok {
			want[name] = string(f.Data)
			continue
		}
		in[f.Name] = string(f.Data)
		if f.Name == "compose.yaml" || f.Name == "compose.yml" {
			services = serviceNames(string(f.Data))
		}
	}
	byDir := map[string][]string{}
	// A main configuration (with its own events {} block) is no include:
	// the harness wraps the .conf files of a directory in its own http {}.
	mainConf := regexp.MustCompile(`(?m)^\s*events\s*\{`)
	for name := range in {
		if strings.HasSuffix(name, ".conf") && !mainConf.MatchString(in[name]) {
			byDir[filepath.Dir(name)] = append(byDir[filepath.Dir(name)], name)
		}
	}
	var out []confPair
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		names := byDir[dir]
		sort.Strings(names)
		var before, after strings.Builder
		for _, n := range names {
			before.WriteString(in[n] + "\n")
			if w, ok := want[n]; ok {
				after.WriteString(w + "\n")
			} else {
				after.WriteString(in[n] + "\n")
			}
		}
		if before.String() == after.String() || !strings.Contains(after.String(), "unix:") {
			continue
		}
		if regexp.MustCompile(`\b(uwsgi|fastcgi|grpc)_pass\b`).MatchString(before.String()) {
			continue
		}
		out = append(out, confPair{name: dir, before: before.String(), after: after.String(), services: services})
	}
	return out
}

// serviceNames reads the service keys of a compose file (two-space
// indented under services:, as the goldens are written) and their
// container_name and hostname values.
func serviceNames(compose string) []string {
	var names []string
	in := false
	for _, l := range strings.Split(strings.ReplaceAll(compose, "\r\n", "\n"), "\n") {
		switch {
		case l == "services:":
			in = true
		case in && len(l) > 0 && l[0] != ' ' && l[0] != '#':
			in = false
		case in && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") && strings.HasSuffix(strings.TrimSpace(l), ":"):
			names = append(names, strings.TrimSuffix(strings.TrimSpace(l), ":"))
		case in:
			// Other names the service is reached by on the network.
			for _, k := range []string{"container_name:", "hostname:"} {
				if v, ok := strings.CutPrefix(strings.TrimSpace(l), k); ok {
					names = append(names, strings.Trim(strings.TrimSpace(v), `"'`))
				}
			}
		}
	}
	return names
}

// backend is the app server stand-in: the same handler on TCP and on a
// Unix socket.
type backend struct {
	tcpAddr string
	sock    string
}

func (b *backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "backend: %s %s", r.Method, r.URL.RequestURI())
}

// startBackend serves HTTP on a loopback port and on sock with mode.
func startBackend(t *testing.T, sock string, mode os.FileMode) *backend {
	t.Helper()
	b := &backend{sock: sock}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b.tcpAddr = tl.Addr().String()
	if err := os.MkdirAll(filepath.Dir(sock), 0o755); err != nil {
		t.Fatal(err)
	}
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, mode); err != nil {
		t.Fatal(err)
	}
	for _, l := range []net.Listener{tl, ul} {
		srv := &http.Server{Handler: b}
		go srv.Serve(l)
		t.Cleanup(func() { srv.Close() })
	}
	return b
}

// run is one nginx process.
type run struct {
	port   string
	errLog string
}

// startNginx runs nginx with conf (http-level directives) included in a
// main configuration of its own, and waits until it accepts connections.
func startNginx(t *testing.T, bin, dir, conf string) *run {
	t.Helper()
	port := freePort(t)
	conf = regexp.MustCompile(`(?m)^(\s*)listen\s+[^;]+;`).ReplaceAllString(conf, "${1}listen 127.0.0.1:"+port+";")
	if err := os.WriteFile(filepath.Join(dir, "site.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	user := ""
	if os.Geteuid() == 0 {
		// As root the master starts its worker as this user; without the
		// directive nginx would pick nobody too, but say so.
		user = "user nobody nogroup;\n"
	}
	main := user + fmt.Sprintf(`worker_processes 1;
daemon off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log info;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	include %[1]s/site.conf;
}
`, dir)
	mainPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(mainPath, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &run{port: port, errLog: filepath.Join(dir, "error.log")}
	args := []string{"-p", dir, "-c", mainPath, "-e", r.errLog}
	if out, err := exec.Command(bin, append(args, "-t")...).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t rejects the configuration: %v\n%s\n--- site.conf ---\n%s", err, out, conf)
	}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return r
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(r.errLog)
			t.Fatalf("nginx does not accept on port %s: %v\n%s", port, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// get fetches path through nginx and returns "STATUS body".
func (r *run) get(t *testing.T, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:"+r.port+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		body = nil // nginx's error pages name its version; compare status only
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, body)
}

var (
	locationRE = regexp.MustCompile(`location\s+(/[^\s{]*)\s*\{`)
	socketRE   = regexp.MustCompile(`unix:(/[^\s;:"']+)`)
	// externalRE matches absolute URLs to hosts with a dot: nginx
	// resolves them at startup, so they are sent to a closed local port.
	externalRE = regexp.MustCompile(`https?://[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+(:\d+)?`)
)

// paths are the request paths to compare: each literal location prefix,
// with "probe" appended to prefixes ending in "/".
func paths(conf string) []string {
	var out []string
	for _, m := range locationRE.FindAllStringSubmatch(conf, -1) {
		p := m[1]
		if strings.HasSuffix(p, "/") {
			p += "probe"
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		out = []string{"/"}
	}
	sort.Strings(out)
	return out
}

// proveConf runs the before and after configurations and compares every
// location.
func proveConf(t *testing.T, bin string, c confPair) {
	root, err := os.MkdirTemp("", "nginx-e2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	// The worker (nobody) must reach the socket through these directories.
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	socks := socketRE.FindAllStringSubmatch(c.after, -1)
	if len(socks) == 0 {
		t.Fatal("the migrated configuration names no socket")
	}
	sockPath := socks[0][1]
	for _, s := range socks {
		if s[1] != sockPath {
			t.Fatalf("the migrated configuration names two sockets (%s, %s); one backend stands in for one", sockPath, s[1])
		}
	}
	mapped := filepath.Join(root, "fs", sockPath)
	be := startBackend(t, mapped, 0o666)

	// The app's service names reach the backend's TCP port (as written,
	// and for what the migration leaves on TCP); other hosts a closed
	// port, since nginx resolves names at startup.
	toLocal := func(conf string) string {
		conf = externalRE.ReplaceAllString(conf, "http://127.0.0.1:9")
		for _, s := range c.services {
			conf = regexp.MustCompile(`(\s|//)`+regexp.QuoteMeta(s)+`(:\d+)?([;/" \t])`).ReplaceAllString(conf, "${1}"+be.tcpAddr+"$3")
		}
		return conf
	}
	before := toLocal(c.before)
	// Migrated: the container path of the socket maps into the temp dir.
	after := strings.ReplaceAll(toLocal(c.after), "unix:"+sockPath, "unix:"+mapped)

	dirA, dirB := filepath.Join(root, "tcp"), filepath.Join(root, "sock")
	for _, d := range []string{dirA, dirB} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tcpRun := startNginx(t, bin, dirA, before)
	sockRun := startNginx(t, bin, dirB, after)
	ok := 0
	for _, p := range paths(c.after) {
		a, b := tcpRun.get(t, p), sockRun.get(t, p)
		t.Logf("GET %s: TCP %q, socket %q", p, a, b)
		if a != b {
			t.Errorf("GET %s: over TCP %q, over the socket %q", p, a, b)
		}
		if strings.HasPrefix(b, "200 backend: ") {
			ok++
		}
	}
	if ok == 0 {
		log, _ := os.ReadFile(sockRun.errLog)
		t.Fatalf("no location reached the backend through the socket\n%s", log)
	}

	if os.Geteuid() != 0 {
		t.Log("not root: the worker runs as this user, so the socket permission check is not exercised")
		return
	}
	// The same socket at the mode a root app server with umask 022 gives
	// it: nginx's unprivileged worker cannot connect.
	if err := os.Chmod(mapped, 0o755); err != nil {
		t.Fatal(err)
	}
	// A fresh nginx: upstream keepalive would reuse connections made
	// while the socket was open to all.
	dirC := filepath.Join(root, "denied")
	if err := os.MkdirAll(dirC, 0o755); err != nil {
		t.Fatal(err)
	}
	deniedRun := startNginx(t, bin, dirC, after)
	denied := 0
	for _, p := range paths(c.after) {
		if got := deniedRun.get(t, p); strings.HasPrefix(got, "502 ") && strings.HasPrefix(tcpRun.get(t, p), "200 ") {
			denied++
		}
	}
	if denied == 0 {
		t.Errorf("socket mode 0755: no location that the socket served failed with 502")
	}
	log, _ := os.ReadFile(deniedRun.errLog)
	if !strings.Contains(string(log), "(13: Permission denied) while connecting to upstream") {
		t.Errorf("socket mode 0755: nginx's error log lacks \"13: Permission denied\":\n%s", log)
	}
}
