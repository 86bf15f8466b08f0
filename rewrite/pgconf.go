package rewrite

import (
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
)

// confLineRE matches "name = value" in postgresql.conf (PostgreSQL docs
// §20.1.2: '=' optional, value optionally single-quoted, # comments).
var confLineRE = regexp.MustCompile(`^\s*([a-z_]+)\s*=?\s*('(?:[^']|'')*'|[^\s#]+)`)

// confSettings reads port and unix_socket_directories from a
// postgresql.conf the service gets through a bind mount and names with
// -c config_file=PATH (or mounts at the image's default PGDATA location).
func (p *project) confSettings(svc types.ServiceConfig) (port int, socketDir string) {
	confPath := ""
	for _, w := range commandWords(svc) {
		if v := settingValue(strings.TrimPrefix(w, "-c"), "config_file"); v != "" {
			confPath = strings.Trim(v, `'"`)
		}
	}
	if confPath == "" {
		return 0, ""
	}
	for _, v := range svc.Volumes {
		if v.Type != types.VolumeTypeBind || v.Source == "" {
			continue
		}
		host := ""
		switch {
		case path.Clean(v.Target) == path.Clean(confPath):
			host = v.Source
		case strings.HasPrefix(confPath, path.Clean(v.Target)+"/"):
			host = filepath.Join(v.Source, strings.TrimPrefix(confPath, path.Clean(v.Target)+"/"))
		default:
			continue
		}
		data, err := p.readFile(p.displayPath(host))
		if err != nil {
			return 0, ""
		}
		for _, line := range strings.Split(string(data), "\n") {
			m := confLineRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			val := strings.ReplaceAll(strings.Trim(m[2], "'"), "''", "'")
			switch m[1] {
			case "port":
				if n, ok := atoiPort(val); ok {
					port = n
				}
			case "unix_socket_directories":
				if first, _, _ := strings.Cut(val, ","); strings.HasPrefix(strings.TrimSpace(first), "/") {
					socketDir = strings.TrimSpace(first)
				}
			}
		}
		return port, socketDir
	}
	return 0, ""
}
