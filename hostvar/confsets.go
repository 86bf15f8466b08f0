package hostvar

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
)

// confSets reports whether the file a service bind-mounts at the container
// path file (mounted itself, or inside a mounted directory) has a line
// setting key, read as the Odoo image's entrypoint reads odoo.conf
// (grep -E "^\s*\bKEY\b\s*=", odoo/docker 17.0/entrypoint.sh check_config).
// at is "file:line" relative to the project directory.
func (sc *Scopes) confSets(service, file, key string) (at string, ok bool) {
	host := sc.MountedSource(service, file)
	if host == "" {
		return "", false
	}
	// Through the project's reader: a regular file of bounded size inside
	// the project (a FIFO would block, a link out of it is not read).
	if sc.p.Escapes(host) != nil {
		return "", false
	}
	data, err := sc.p.ReadFile(host)
	if err != nil {
		return "", false
	}
	re := regexp.MustCompile(`^\s*\b` + regexp.QuoteMeta(key) + `\b\s*=`)
	scan := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; scan.Scan(); n++ {
		if re.MatchString(scan.Text()) {
			rel, err := filepath.Rel(sc.p.Model.WorkingDir, host)
			if err != nil {
				rel = host
			}
			return fmt.Sprintf("%s:%d", filepath.ToSlash(rel), n), true
		}
	}
	return "", false
}

// MountedSource returns the host path behind container path file of a
// service's bind mounts, or "".
func (sc *Scopes) MountedSource(service, file string) string {
	return BindSource(sc.p.Model.Services[service].Volumes, file)
}

// BindSource returns the host path that bind mounts vols put at the
// container path file (the file mounted itself, or inside a mounted
// directory), or "".
func BindSource(vols []types.ServiceVolumeConfig, file string) string {
	for _, m := range vols {
		if m.Type != "bind" || m.Source == "" {
			continue
		}
		t := path.Clean(m.Target)
		if t == file {
			return m.Source
		}
		if rest, ok := strings.CutPrefix(file, t+"/"); ok {
			return filepath.Join(m.Source, filepath.FromSlash(rest))
		}
	}
	return ""
}
