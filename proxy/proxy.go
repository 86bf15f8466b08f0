package proxy

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/textedit"
	"github.com/uds-migrate/uds-migrate/nginx"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// appSide is an app server that nginx reaches over TCP: the targets that
// name it and where its socket goes.
type appSide struct {
	name     string
	port     int    // the TCP port nginx used (0 when not written)
	protocol string // what nginx speaks to it: http, uwsgi, fastcgi, grpc
	targets  []proxyTarget
	proxies  []string // nginx services that reach it
	volume   string
	dir      string // socket directory, the same path in app and proxies
	// otherPorts are ports besides port that nginx reaches the app on:
	// then nothing of the app is migrated (UDS310).
	otherPorts []int
}

// proxyTarget is one nginx address that reaches an app service.
type proxyTarget struct {
	file  *confFile
	proxy string
	t     nginx.Target
}

// sockName is the socket file inside the socket directory.
const sockName = "app.sock"

// Options are what the proxy step takes from the run.
type Options struct {
	// DropTCP makes app servers listen on the socket instead of their TCP
	// port (default: both).
	DropTCP bool
	// SocketTarget says whether a mount at target is where a socket volume
	// goes (a PostgreSQL image's socket directory, the clients' mount
	// path), for compose.Editor.SocketVolumeName.
	SocketTarget func(image, target string) bool
}

// planner plans the nginx → app server migration of one project: it reads
// the nginx configuration files and keeps their edits itself, edits the
// compose files through the run's editor and reports into the run's
// report. It knows nothing of PostgreSQL.
type planner struct {
	p     *compose.Project
	ed    *compose.Editor
	rep   *finding.Report
	opts  Options
	files map[string]*confFile // nginx files read, by host path; nil: not readable
	res   Result
}

// Result is what the proxy step did that the run's summary needs.
type Result struct {
	// OnTCP are the app services whose every address stays on TCP
	// because nginx reaches them on more than one port (UDS310).
	OnTCP []string
}

// Run is the proxy step of a migration: see planner.run.
func Run(p *compose.Project, ed *compose.Editor, rep *finding.Report, opts Options) Result {
	pp := &planner{p: p, ed: ed, rep: rep, opts: opts, files: map[string]*confFile{}}
	pp.run()
	return pp.res
}

// run moves nginx reverse proxies in front of app servers to a Unix
// socket in a named volume shared by the two: the nginx addresses that
// reach a compose service are rewritten in the mounted configuration
// files, the app server is told to listen on the socket as well (its
// command or its unicorn config), and both services mount the volume. An
// app whose server the tool cannot reconfigure stays on TCP, with a
// warning.
func (pp *planner) run() {
	files := pp.files
	proxies := pp.findProxies()
	var cfgs []*nginx.Config
	upstreams := map[string]bool{}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if cf := files[p]; cf != nil {
			cfgs = append(cfgs, cf.cfg)
			for _, u := range cf.cfg.Upstreams() {
				upstreams[u] = true
			}
		}
	}
	protocols := nginx.UpstreamProtocols(cfgs)
	apps := pp.proxyApps(proxies, upstreams, protocols)
	for _, a := range apps {
		if len(apps) > 1 {
			a.dir = "/run/" + a.name
		}
		pp.migrateApp(a)
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		cf := files[p]
		if cf == nil || len(cf.edits) == 0 {
			continue
		}
		out, err := textedit.Apply(cf.data, cf.edits)
		if err != nil {
			err = fmt.Errorf("nginx: %w", err)
			pp.rep.Add("UDS111", finding.Pos{File: cf.path}, "", "", err.Error())
			continue
		}
		pp.ed.PutFile(cf.path, cf.data, out)
	}
}

// proxyApps groups the nginx targets of every proxy by the app service
// they reach, in the order the services are written. Variable addresses
// are reported (UDS302); addresses outside the project are left alone.
func (pp *planner) proxyApps(proxies []*proxyService, upstreams map[string]bool, protocols map[string]string) []*appSide {
	byName := map[string]*appSide{}
	seen := map[*confFile]map[int]bool{}
	for _, px := range proxies {
		for _, cf := range px.files {
			for _, t := range cf.cfg.Targets(upstreams, protocols) {
				if seen[cf] == nil {
					seen[cf] = map[int]bool{}
				}
				first := !seen[cf][t.Arg.Start]
				seen[cf][t.Arg.Start] = true
				if t.Variable {
					if first {
						pp.rep.Add("UDS302", finding.Pos{File: cf.path, Line: t.Line, Col: t.Col}, px.name, t.Directive,
							fmt.Sprintf("%s %s is resolved per request from a variable: left on TCP; if it names an app of this project, write its socket form by hand", t.Directive, t.Arg.Value))
					}
					continue
				}
				if t.Scheme == "https" || t.Scheme == "grpcs" || t.Scheme == "suwsgi" {
					continue // TLS to the app: its certificate setup is not ours to move
				}
				app := pp.serviceForHost(px.name, t.Host)
				if app == "" {
					continue
				}
				a := byName[app]
				if a == nil {
					a = &appSide{name: app, port: t.Port, protocol: t.Protocol, volume: app + "-socket", dir: "/run/app"}
					byName[app] = a
				}
				if t.Port != a.port {
					a.otherPorts = append(a.otherPorts, t.Port)
				}
				if first {
					a.targets = append(a.targets, proxyTarget{file: cf, proxy: px.name, t: t})
				}
				if !slices.Contains(a.proxies, px.name) {
					a.proxies = append(a.proxies, px.name)
				}
			}
		}
	}
	var out []*appSide
	for _, name := range pp.p.ServiceOrder() {
		a := byName[name]
		if a == nil {
			continue
		}
		if len(a.otherPorts) > 0 {
			// One socket serves one listener. Migrating one port and not
			// the other would also not be idempotent: a second run would
			// see the other port alone and move it to the same socket.
			pp.res.OnTCP = append(pp.res.OnTCP, a.name)
			for _, pt := range a.targets {
				pp.rep.Add("UDS310", finding.Pos{File: pt.file.path, Line: pt.t.Line, Col: pt.t.Col}, pt.proxy, pt.t.Directive,
					fmt.Sprintf("%s is reached on port %d and on port %d; one socket serves one listener, so every address of %s stays on TCP (%s here)", a.name, a.port, a.otherPorts[0], a.name, pt.t.Arg.Value))
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// serviceForHost returns the service that host names from the proxy's
// network view (service name, container_name, hostname, aliases, links),
// or "".
func (pp *planner) serviceForHost(proxy, host string) string {
	if r := pp.p.Resolve(proxy, host); len(r.Services) == 1 {
		return r.Services[0]
	}
	return ""
}

// migrateApp moves one app and its proxies to the socket, when the app
// server can be told to listen on it.
func (pp *planner) migrateApp(a *appSide) {
	appSrc, appNode := pp.p.ServiceNode(a.name)
	// A second proxy run keeps the directory the app already mounts.
	_, ms := pp.p.Mounts(appSrc, appNode)
	// Only a volume its server already listens in (a first run's
	// app.sock): a volume of that name mounted for anything else (media,
	// data) must not reach nginx.
	mounted := false
	svc := pp.p.Model.Services[a.name]
	listens := strings.Join(append(append([]string{}, svc.Entrypoint...), svc.Command...), " ")
	for _, m := range ms {
		if m.Source == a.volume && strings.Contains(listens, path.Clean(m.Target)+"/"+sockName) {
			a.dir, mounted = m.Target, true
		}
	}
	if !mounted && pp.ed.VolumesInUse(pp.opts.SocketTarget)[a.volume] {
		// Another volume of that name (the app's data, say): never share it
		// with nginx (UDS112).
		taken := a.volume
		a.volume, _ = pp.ed.SocketVolumeName(a.volume, pp.opts.SocketTarget)
		kn, _ := yamledit.OwnKey(compose.ServicesMapping(appSrc), a.name)
		pp.rep.Add("UDS112", yamledit.NodePos(appSrc, kn), a.name, "volumes",
			fmt.Sprintf("the project already has a volume named %s for something else: %s's socket volume is %s instead (mounting that volume would hand its files to nginx)", taken, a.name, a.volume))
	}
	sock := a.dir + "/" + sockName
	if !pp.listenOnSocket(a, sock) {
		return
	}
	for _, pt := range a.targets {
		after := pt.t.SocketForm(sock)
		pt.file.edits = append(pt.file.edits, pt.t.Replace(after))
		pp.rep.Change(finding.Change{Kind: "value", Pos: finding.Pos{File: pt.file.path, Line: pt.t.Line, Col: pt.t.Col}, Service: pt.proxy, Key: pt.t.Directive,
			Dialect: "nginx", Before: pt.t.Arg.Value, After: after, Reason: "reach " + a.name + " through its socket in " + a.dir})
		if !pt.t.HostHeader {
			pp.rep.Add("UDS307", finding.Pos{File: pt.file.path, Line: pt.t.Line, Col: pt.t.Col}, pt.proxy, pt.t.Directive,
				fmt.Sprintf("nginx sends \"Host: localhost\" to a Unix socket where it sent \"Host: %s\"; add proxy_set_header Host $host; if %s checks the host name (Django ALLOWED_HOSTS, Rails config.hosts)", hostPort(pt.t), a.name))
		}
	}
	if !pp.hasMountOf(a.name, a.volume) {
		pp.ed.AddMount(appSrc, appNode, a.name, a.volume+":"+a.dir, "read-write: the app server creates its socket in "+a.dir)
	}
	for _, px := range a.proxies {
		if pp.hasMountOf(px, a.volume) {
			continue
		}
		src, node := pp.p.ServiceNode(px)
		pp.ed.AddMount(src, node, px, a.volume+":"+a.dir+":ro", "read-only is enough for nginx to connect to "+a.name+"'s socket")
	}
	pp.ed.EnsureTopVolume(appSrc, a.volume)
}

func hostPort(t nginx.Target) string {
	if t.Port == 0 {
		return t.Host
	}
	return t.Host + ":" + strconv.Itoa(t.Port)
}

// hasMountOf reports whether service already mounts volume.
func (pp *planner) hasMountOf(service, volume string) bool {
	src, node := pp.p.ServiceNode(service)
	_, ms := pp.p.Mounts(src, node)
	for _, m := range ms {
		if m.Source == volume {
			return true
		}
	}
	return false
}

// servicePos is the position of a service's key, for findings about the
// service as a whole.
func (pp *planner) servicePos(service string) finding.Pos {
	src, node := pp.p.ServiceNode(service)
	if kn, _ := yamledit.OwnKey(compose.ServicesMapping(src), service); kn != nil {
		return yamledit.NodePos(src, kn)
	}
	return yamledit.NodePos(src, node)
}

// note adds a finding about a service at its key.
func (pp *planner) note(code, service, key, msg string) {
	pp.rep.Add(code, pp.servicePos(service), service, key, msg)
}
