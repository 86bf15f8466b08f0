package benchhttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/uds-migrate/uds-migrate/bench"
	"github.com/uds-migrate/uds-migrate/nginx"
)

// Names the compose override gives the bench's proxy; the profile keeps
// `docker compose up` from starting it.
const (
	ProxySidecar = "uds-bench-proxy"
	sidecarConf  = "/uds-bench/nginx.conf"
	// The sidecar's two fronts: proxying over TCP, and over the socket.
	tcpFront, socketFront = 8081, 8082
)

// ComposeTarget is a migrated compose project's reverse proxy and the app
// server behind it, as `bench http --compose` needs them: the app listens
// over TCP (the address the proxy used before the migration) and on the
// socket in a volume both services mount.
type ComposeTarget struct {
	// Files are the compose files, in -f order.
	Files []string
	// Proxy is the nginx service; Image its image, which the bench's own
	// nginx (ProxySidecar) runs; Networks the networks it joins.
	Proxy, Image string
	Networks     []string
	// App is the app server's service; AppTCP its TCP address on the
	// compose network ("app:8080").
	App, AppTCP string
	// Volume is the socket volume (VolumeType "volume") or host directory
	// ("bind") the proxy mounts at SocketDir; Socket is the socket file as
	// the proxy sees it.
	Volume, VolumeType, SocketDir, Socket string
}

var nginxImageRE = regexp.MustCompile(`(^|/)(nginx|nginx-unprivileged|openresty)(:|@|$)`)

// LoadCompose finds, in a migrated project, the proxy (service proxy, or
// the only nginx/openresty service), the socket it proxies to (socket as
// the proxy sees it, or the only unix: address of its mounted nginx
// configuration that lies in a volume another service mounts too: that
// service is the app) and the app's TCP address (appTCP, or the app
// service's only exposed or published container port). Errors say which
// flag settles what cannot be found.
func LoadCompose(ctx context.Context, files []string, proxy, socket, appTCP string) (*ComposeTarget, error) {
	proj, err := bench.LoadProject(ctx, files)
	if err != nil {
		return nil, err
	}
	px, err := pickProxy(proj, proxy)
	if err != nil {
		return nil, err
	}
	ct := &ComposeTarget{Files: files, Proxy: px.Name, Image: px.Image}
	for n := range px.Networks {
		ct.Networks = append(ct.Networks, n)
	}
	sort.Strings(ct.Networks)
	if ct.Image == "" {
		return nil, fmt.Errorf("service %s has no image: the bench runs its own nginx from the proxy's image", px.Name)
	}
	if socket == "" {
		socks := configSockets(px)
		if len(socks) != 1 {
			return nil, fmt.Errorf("service %s: %d unix: upstreams in its mounted nginx configuration (%s): name the app's socket, as %s sees it, with --app-socket", px.Name, len(socks), strings.Join(socks, ", "), px.Name)
		}
		socket = socks[0]
	}
	ct.Socket = path.Clean(socket)
	for _, v := range px.Volumes {
		if v.Type != types.VolumeTypeVolume && v.Type != types.VolumeTypeBind {
			continue
		}
		if t := path.Clean(v.Target); strings.HasPrefix(ct.Socket, t+"/") {
			if app := sharer(proj, px.Name, v); app != "" {
				ct.Volume, ct.VolumeType, ct.SocketDir, ct.App = v.Source, v.Type, t, app
			}
		}
	}
	if ct.App == "" {
		return nil, fmt.Errorf("service %s mounts no volume holding %s that another service mounts too: migrate the file first (uds-migrate -w %s)", px.Name, ct.Socket, files[0])
	}
	if appTCP == "" {
		ports := containerPorts(proj.Services[ct.App])
		if len(ports) != 1 {
			return nil, fmt.Errorf("service %s exposes %d ports (%s): name the app's TCP address with --app-tcp HOST:PORT", ct.App, len(ports), strings.Join(ports, ", "))
		}
		appTCP = net.JoinHostPort(ct.App, ports[0])
	}
	if _, _, err := net.SplitHostPort(appTCP); err != nil {
		return nil, fmt.Errorf("--app-tcp %q: want HOST:PORT", appTCP)
	}
	ct.AppTCP = appTCP
	return ct, nil
}

func pickProxy(proj *types.Project, name string) (types.ServiceConfig, error) {
	if name != "" {
		svc, err := proj.GetService(name)
		if err != nil {
			return svc, fmt.Errorf("--service %s: %w", name, err)
		}
		return svc, nil
	}
	var found []string
	for n, svc := range proj.Services {
		if nginxImageRE.MatchString(strings.ToLower(svc.Image)) {
			found = append(found, n)
		}
	}
	sort.Strings(found)
	switch len(found) {
	case 1:
		return proj.Services[found[0]], nil
	case 0:
		return types.ServiceConfig{}, errors.New("no nginx or openresty service found: name the proxy with --service")
	}
	return types.ServiceConfig{}, fmt.Errorf("several proxy services (%s): choose one with --service", strings.Join(found, ", "))
}

// sharer is the first other service (by name) mounting the same volume or
// host directory as v.
func sharer(proj *types.Project, proxy string, v types.ServiceVolumeConfig) string {
	var names []string
	for n, svc := range proj.Services {
		if n == proxy {
			continue
		}
		for _, w := range svc.Volumes {
			if w.Type == v.Type && w.Source == v.Source {
				names = append(names, n)
				break
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// containerPorts lists a service's exposed and published container ports,
// once each.
func containerPorts(svc types.ServiceConfig) []string {
	var out []string
	add := func(p string) {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, e := range svc.Expose {
		add(strings.SplitN(e, "/", 2)[0])
	}
	for _, p := range svc.Ports {
		add(strconv.Itoa(int(p.Target)))
	}
	return out
}

// configSockets lists the unix: socket paths the proxy's configuration
// proxies HTTP to (servers of upstream blocks, proxy_pass), from the files
// it bind-mounts into an nginx configuration directory (compose-go has
// made their sources absolute). Files that do not parse are skipped.
func configSockets(px types.ServiceConfig) []string {
	var out []string
	for _, v := range px.Volumes {
		if v.Type != types.VolumeTypeBind || !nginx.InConfDir(v.Target) {
			continue
		}
		for _, f := range confFiles(v.Source) {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			c, err := nginx.Parse(data)
			if err != nil {
				continue
			}
			c.Walk(func(d *nginx.Directive, parents []*nginx.Directive) {
				name := d.Name.Value
				inUpstream := len(parents) > 0 && parents[len(parents)-1].Name.Value == "upstream"
				if len(d.Args) == 0 || !(name == "server" && inUpstream && !d.IsBlock || name == "proxy_pass") {
					return
				}
				if p := socketPath(d.Args[0].Value); p != "" && !slices.Contains(out, p) {
					out = append(out, p)
				}
			})
		}
	}
	return out
}

// socketPath reads "unix:/run/app.sock" (an upstream server) or
// "http://unix:/run/app.sock:/uri" (proxy_pass); "" for anything else.
func socketPath(addr string) string {
	_, rest, scheme := strings.Cut(addr, "://")
	if !scheme {
		rest = addr
	}
	p, ok := strings.CutPrefix(rest, "unix:")
	if !ok || !strings.HasPrefix(p, "/") {
		return ""
	}
	if i := strings.IndexByte(p, ':'); scheme && i >= 0 { // the URI follows the path's colon
		p = p[:i]
	}
	return p
}

// confFiles is the file itself, or a directory's *.conf files.
func confFiles(src string) []string {
	fi, err := os.Stat(src)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		return []string{src}
	}
	fs, _ := filepath.Glob(filepath.Join(src, "*.conf"))
	return fs
}

// ComposeRun is a `bench http` against a compose project: the bench's own
// nginx (ProxySidecar, from the proxy's image, on the proxy's networks,
// mounting the socket volume read-only where the proxy does) proxies one
// front over TCP to AppTCP and one over the socket; this process sends the
// requests to the sidecar's address on the compose network.
type ComposeRun struct {
	Target *ComposeTarget
	// Dir receives the override (compose.uds-bench-http.yaml) and
	// nginx.conf.
	Dir string
	// Docker is the docker binary; "" means "docker" on PATH.
	Docker string
	// Path is the request path; "" means "/".
	Path string
}

func (r *ComposeRun) dir() string {
	if d, err := filepath.Abs(r.Dir); err == nil {
		return d
	}
	return r.Dir
}

// Override is the absolute path of the rendered override file.
func (r *ComposeRun) Override() string { return filepath.Join(r.dir(), "compose.uds-bench-http.yaml") }

// Prepare writes nginx.conf (RenderNginx: nginx's default proxying, or
// upstream keepalive) and the override into Dir.
func (r *ComposeRun) Prepare(keepalive int) error {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return err
	}
	conf, err := RenderNginx(NginxConfig{
		Prefix: "/tmp", ErrorLog: "/dev/stderr", Listen: "0.0.0.0",
		TCPPort: tcpFront, SocketPort: socketFront,
		Backend: r.Target.AppTCP, BackendSocket: r.Target.Socket, Keepalive: keepalive,
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.dir(), "nginx.conf"), []byte(conf), 0o644); err != nil {
		return err
	}
	return os.WriteFile(r.Override(), []byte(r.override()), 0o644)
}

// override is the compose override adding ProxySidecar.
func (r *ComposeRun) override() string {
	q := func(s string) string { return strconv.Quote(strings.ReplaceAll(s, "$", "$$")) }
	ct := r.Target
	var b strings.Builder
	fmt.Fprintf(&b, `# Written by uds-migrate bench http --compose: nginx from %s's image,
# proxying :%d to %s over TCP and :%d to unix:%s.
services:
  %s:
    image: %s
    profiles: [%s]
    depends_on: [%s]
    entrypoint: ["nginx", "-c", %s]
    command: []
`, ct.Proxy, tcpFront, ct.AppTCP, socketFront, ct.Socket, q(ProxySidecar), q(ct.Image), q(bench.SidecarProf), q(ct.App), q(sidecarConf))
	if len(ct.Networks) > 0 {
		b.WriteString("    networks:\n")
		for _, n := range ct.Networks {
			fmt.Fprintf(&b, "      - %s\n", q(n))
		}
	}
	fmt.Fprintf(&b, `    volumes:
      - type: %s
        source: %s
        target: %s
        read_only: true
      - type: bind
        source: %s
        target: %s
        read_only: true
`, q(ct.VolumeType), q(ct.Volume), q(ct.SocketDir), q(filepath.Join(r.dir(), "nginx.conf")), q(sidecarConf))
	return b.String()
}

// compose is docker compose -f FILE... -f OVERRIDE --profile uds-bench ARGS.
func (r *ComposeRun) compose(ctx context.Context, args ...string) ([]byte, error) {
	cmd := []string{"compose"}
	for _, f := range r.Target.Files {
		cmd = append(cmd, "-f", f)
	}
	cmd = append(cmd, "-f", r.Override(), "--profile", bench.SidecarProf)
	c := exec.CommandContext(ctx, r.docker(), append(cmd, args...)...)
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "unknown shorthand flag: 'f' in -f") || strings.Contains(stderr.String(), "'compose' is not a docker command") {
			return out, bench.ErrNoCompose
		}
		return out, fmt.Errorf("docker compose %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func (r *ComposeRun) docker() string {
	if r.Docker == "" {
		return "docker"
	}
	return r.Docker
}

// start starts the sidecar (and the app with it, as its dependency) and
// returns the sidecar's container id and its address on the compose
// network.
func (r *ComposeRun) start(ctx context.Context) (id, addr string, err error) {
	if _, err := r.compose(ctx, "up", "-d", ProxySidecar); err != nil {
		return "", "", err
	}
	out, err := r.compose(ctx, "ps", "-q", ProxySidecar)
	if err != nil {
		return "", "", err
	}
	id = strings.TrimSpace(string(out))
	ip, err := exec.CommandContext(ctx, r.docker(), "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", id).Output()
	if err != nil {
		return id, "", fmt.Errorf("docker inspect %s: %w", ProxySidecar, err)
	}
	fields := strings.Fields(string(ip))
	if len(fields) == 0 {
		return id, "", fmt.Errorf("%s has no address on the compose network", ProxySidecar)
	}
	return id, fields[0], nil
}

// stop removes the sidecar; the app keeps running, as after any docker
// compose up.
func (r *ComposeRun) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r.compose(ctx, "rm", "-s", "-f", ProxySidecar)
}

// logs is the tail of the sidecar's output (nginx's error log goes there).
func (r *ComposeRun) logs() string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, _ := r.compose(ctx, "logs", "--no-color", "--no-log-prefix", "--tail", "20", ProxySidecar)
	return strings.TrimSpace(string(out))
}

// ReadyTimeout bounds the wait for both fronts to answer 200: the app may
// still be starting.
var ReadyTimeout = 2 * time.Minute

// ready waits until both fronts answer 200 and returns the transport
// header each answer carried ("" from an app that sets none).
func ready(ctx context.Context, urls []string) ([]string, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(ReadyTimeout)
	var got []string
	for _, u := range urls {
		for {
			resp, err := c.Get(u)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					got = append(got, resp.Header.Get(TransportHeader))
					break
				}
				err = errors.New(resp.Status)
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("GET %s: %w after %v", u, err, ReadyTimeout)
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
	return got, nil
}

// RunCompose measures the compose project's app through the bench's nginx,
// container to container: Prepare, start the sidecar (and the app), wait
// until both fronts answer 200, interleaved rounds from this process to the
// sidecar's address, analysis; the sidecar is removed at the end, on error
// and on cancellation too. An app that sets TransportHeader (the embedded
// backend's handler) must answer each front over its own transport. Other
// processes' CPU is measured when the app's and the sidecar's containers
// run on this machine (their processes are then the bench's own).
func RunCompose(ctx context.Context, r *ComposeRun, cfg Config) (*Report, error) {
	if cfg.Concurrency < 1 || cfg.Requests < 0 || cfg.Keepalive < 0 {
		return nil, errors.New("need concurrency ≥ 1, requests ≥ 0 and keepalive ≥ 0")
	}
	if err := r.Prepare(cfg.Keepalive); err != nil {
		return nil, err
	}
	defer r.stop()
	id, ip, err := r.start(ctx)
	if err != nil {
		return nil, err
	}
	p := r.Path
	if p == "" {
		p = "/"
	}
	base := func(port int) string { return "http://" + net.JoinHostPort(ip, strconv.Itoa(port)) + p }
	hdr, err := ready(ctx, []string{base(tcpFront), base(socketFront)})
	if err != nil {
		return nil, fmt.Errorf("%w (a Linux host reaches containers at their address on the compose network; %s's log:\n%s)", err, ProxySidecar, r.logs())
	}
	load := &Load{Concurrency: cfg.Concurrency, Requests: cfg.Requests, OnError: func() string {
		if l := r.logs(); l != "" {
			return ProxySidecar + "'s log:\n" + l
		}
		return ""
	}}
	defer load.Close()
	load.Targets = map[bench.Transport]Target{bench.TCP: {URL: base(tcpFront)}, bench.Socket: {URL: base(socketFront)}}
	if hdr[0] != "" || hdr[1] != "" { // the app says which listener answered: hold it to it
		load.Targets = map[bench.Transport]Target{
			bench.TCP:    {URL: base(tcpFront), WantTransport: "tcp"},
			bench.Socket: {URL: base(socketFront), WantTransport: "unix"},
		}
	}
	ct := r.Target
	rep := &Report{Client: load.Name(), Concurrency: cfg.Concurrency, RequestsPerRun: cfg.Requests}
	rep.Proxy = strings.TrimPrefix(r.nginxVersion(ctx, id), "nginx version: ")
	rep.Target = fmt.Sprintf("compose services %s (%s's image %s, %s) → %s, from %s", ProxySidecar, ct.Proxy, ct.Image, rep.Proxy, ct.App, strings.Join(ct.Files, ", "))
	rep.Upstream = "nginx default proxying: a new upstream connection per request"
	if cfg.Keepalive > 0 {
		rep.Upstream = fmt.Sprintf("upstream keepalive %d (HTTP/1.1, idle connections reused)", cfg.Keepalive)
	}
	rep.TCP = base(tcpFront) + " → nginx → " + ct.AppTCP + " (compose network)"
	rep.Socket = base(socketFront) + " → nginx → unix:" + ct.Socket + " (" + ct.VolumeType + " " + ct.Volume + ")"
	var roots []int
	if out, err := r.compose(ctx, "ps", "-q", ct.App); err == nil {
		for _, c := range []string{strings.TrimSpace(string(out)), id} {
			if pid := bench.ContainerPID(ctx, r.docker(), c); bench.Visible(pid) {
				roots = append(roots, pid)
			}
		}
	}
	watch := len(roots) == 2 // without both, their CPU would count as other work
	return measure(ctx, load, cfg, rep, watch, roots...)
}

// nginxVersion is `nginx -v` in the sidecar ("nginx version: nginx/1.22.1"
// on stderr).
func (r *ComposeRun) nginxVersion(ctx context.Context, id string) string {
	out, _ := exec.CommandContext(ctx, r.docker(), "exec", id, "nginx", "-v").CombinedOutput()
	return strings.TrimSpace(string(out))
}
