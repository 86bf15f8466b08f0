package pgserver

import (
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/uds-migrate/uds-migrate/compose"
)

// confLineRE matches "name = value" in postgresql.conf (PostgreSQL docs
// §20.1.2: '=' optional, value optionally single-quoted, # comments). Names
// are letters, digits, '_' and '.' (guc-file.l); a '-' there is a syntax
// error, unlike on the command line.
var confLineRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=?\s*('(?:[^']|'')*'|[^\s#]+)`)

// Settings returns the port and the socket directories of a
// PostgreSQL service as postgres resolves them: the command line (see
// commandSettings) over the postgresql.conf it names with config_file
// (when the compose file bind-mounts it) over PGPORT over the defaults
// (5432; dirs nil means the image's default directory).
func Settings(p *compose.Project, svc types.ServiceConfig) (port int, dirs []string) {
	cmd := CommandSettings(CommandWords(svc))
	conf := confSettings(p, svc, cmd["config_file"])
	for _, src := range []map[string]string{cmd, conf} {
		if n, ok := ParsePort(src["port"]); ok && port == 0 {
			port = n
		}
		if v, ok := src["unix_socket_directories"]; ok && dirs == nil {
			dirs = SocketDirList(v)
		}
	}
	if port == 0 {
		port = 5432
		if n, ok := EnvPort(svc); ok {
			port = n
		}
	}
	return port, dirs
}

// confSettings reads the settings of the postgresql.conf at confPath in the
// container, when the service gets it through a bind mount. Names are
// normalised (settingName); later lines win.
func confSettings(p *compose.Project, svc types.ServiceConfig, confPath string) map[string]string {
	if confPath == "" {
		return nil
	}
	host := bindSourceOf(svc, confPath)
	if host == "" {
		return nil
	}
	data, err := p.ReadFile(p.DisplayPath(host))
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		m := confLineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		val := m[2]
		if strings.HasPrefix(val, "'") {
			val = strings.ReplaceAll(val[1:len(val)-1], "''", "'")
		}
		out[settingName(m[1])] = val
	}
	return out
}

// bindSourceOf returns the host path a service's bind mounts put at the
// container path target, or "".
func bindSourceOf(svc types.ServiceConfig, target string) string {
	target = path.Clean(target)
	for _, v := range svc.Volumes {
		if v.Type != types.VolumeTypeBind || v.Source == "" {
			continue
		}
		t := path.Clean(v.Target)
		switch {
		case t == target:
			return v.Source
		case strings.HasPrefix(target, t+"/"):
			return filepath.Join(v.Source, strings.TrimPrefix(target, t+"/"))
		}
	}
	return ""
}
