package proxy

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/textedit"
	"github.com/uds-migrate/uds-migrate/nginx"
)

// nginxConfDirs are where nginx builds read their configuration: the
// official and unprivileged images, OpenResty, Bitnami.
var nginxConfDirs = []string{"/etc/nginx", "/usr/local/openresty/nginx/conf", "/etc/openresty", "/opt/bitnami/nginx/conf"}

// proxyService is an nginx service and the configuration files it mounts
// from the host.
type proxyService struct {
	name  string
	files []*confFile
}

// confFile is one nginx configuration file reachable through a bind mount.
type confFile struct {
	path  string // relative to the working directory, like the compose paths
	data  []byte
	cfg   *nginx.Config
	edits []textedit.Edit
}

// isNginxImage recognises nginx builds by repository: nginx,
// nginxinc/nginx-unprivileged, openresty/openresty, bitnami/nginx.
// nginx-proxy images write their own configuration and are left out.
func isNginxImage(image string) bool {
	repo, _ := catalog.Split(image)
	last := repo[strings.LastIndex(repo, "/")+1:]
	return last == "nginx" || last == "nginx-unprivileged" || strings.HasPrefix(last, "openresty")
}

// Present reports whether a project has an nginx service the proxy step
// reads: an nginx image, or a host file or directory mounted into an nginx
// configuration directory (as findProxies finds them, without reading
// the files).
func Present(p *compose.Project) bool {
	for _, name := range p.ServiceOrder() {
		if isNginxImage(p.Model.Services[name].Image) {
			return true
		}
		src, node := p.ServiceNode(name)
		_, ms := p.Mounts(src, node)
		for _, m := range ms {
			if m.Bind && underAny(m.Target, nginxConfDirs) {
				return true
			}
		}
	}
	return false
}

// projectDir is the directory compose resolves relative paths against:
// the first compose file's directory, as the user wrote it.
func (pp *planner) projectDir() string {
	return filepath.Dir(pp.p.Sources[0].Path)
}

// hostPath maps a bind-mount source to a path on this machine, relative
// sources joined to the project directory as compose does; ok is false
// for sources the tool cannot follow (~, variables left unset).
func (pp *planner) hostPath(source string) (string, bool) {
	switch {
	case source == "" || strings.HasPrefix(source, "~"):
		return "", false
	case filepath.IsAbs(source):
		return filepath.Clean(source), true
	}
	return filepath.Join(pp.projectDir(), source), true
}

// findProxies lists the nginx services whose configuration is mounted from
// the host: an nginx image, or any service mounting a file or directory
// into an nginx configuration directory. pp.files caches parsed files by
// path, so a file two proxies mount is edited once.
func (pp *planner) findProxies() []*proxyService {
	files := pp.files
	var out []*proxyService
	for _, name := range pp.p.ServiceOrder() {
		src, node := pp.p.ServiceNode(name)
		_, ms := pp.p.Mounts(src, node)
		px := &proxyService{name: name}
		for _, m := range ms {
			if !m.Bind || !underAny(m.Target, nginxConfDirs) || notConfig(m.Target) {
				continue
			}
			host, ok := pp.hostPath(m.Source)
			if !ok {
				continue
			}
			for _, p := range confPaths(host) {
				cf, seen := files[p]
				if !seen {
					cf = pp.readConf(p)
					files[p] = cf
				}
				if cf != nil && !slices.Contains(px.files, cf) {
					px.files = append(px.files, cf)
				}
			}
		}
		if len(px.files) > 0 || isNginxImage(pp.p.Model.Services[name].Image) {
			out = append(out, px)
		}
	}
	return out
}

// notConfigExt are the files mounted into an nginx directory that are no
// configuration: certificates, keys and key stores (ssl_certificate names
// them), password files (auth_basic_user_file). Reading one as nginx
// syntax gave a false "cannot read this nginx configuration" (trial 8,
// AppFlowy-Cloud's /etc/nginx/ssl/certificate.crt and private_key.key).
var notConfigExt = []string{".pem", ".crt", ".cer", ".key", ".csr", ".der", ".p12", ".pfx", ".jks", ".htpasswd"}

// notConfig reports whether a file mounted at p (in the container) is by
// its name no nginx configuration (notConfigExt, or a file named htpasswd).
func notConfig(p string) bool {
	base := strings.ToLower(filepath.Base(p))
	if base == "htpasswd" || base == ".htpasswd" {
		return true
	}
	return slices.Contains(notConfigExt, strings.ToLower(filepath.Ext(base)))
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// confPaths lists the configuration files under a mount source: the file
// itself, or the .conf and .template files (the official image renders
// templates/*.template into conf.d) and sites-enabled entries of a
// directory, in lexical order. A missing source gives none.
func confPaths(host string) []string {
	const maxConfWalk = 10_000
	fi, err := os.Stat(host)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		return []string{host}
	}
	var out []string
	// A bind mount may name any host directory, / included (FuzzMigrate):
	// look at most maxConfWalk entries and 3 levels deep (conf.d/,
	// sites-enabled/, templates/), and read regular files only.
	seen := 0
	filepath.WalkDir(host, func(p string, d fs.DirEntry, err error) error {
		if seen++; seen > maxConfWalk {
			return fs.SkipAll
		}
		if rel, _ := filepath.Rel(host, p); err == nil && d.IsDir() && strings.Count(filepath.ToSlash(rel), "/") >= 2 {
			return fs.SkipDir
		}
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		base, dir := d.Name(), path.Base(filepath.ToSlash(filepath.Dir(p)))
		if strings.HasSuffix(base, ".conf") || strings.HasSuffix(base, ".template") || dir == "sites-enabled" || dir == "sites-available" {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// readConf reads and parses one configuration file; a file nginx would
// reject is reported (UDS306) and left alone.
func (pp *planner) readConf(p string) *confFile {
	data, err := pp.ed.ReadFile(p)
	if err != nil {
		return nil
	}
	cfg, err := nginx.Parse(data)
	if err != nil {
		at, msg := finding.Pos{File: p}, err.Error()
		if se, ok := err.(*nginx.SyntaxError); ok {
			at.Line, at.Col, msg = se.Line, se.Col, se.Msg
		}
		pp.rep.Add("UDS306", at, "", "", "cannot read this nginx configuration ("+msg+"); its upstreams stay on TCP")
		return nil
	}
	return &confFile{path: p, data: data, cfg: cfg}
}
