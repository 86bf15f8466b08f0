package catalog

import (
	"flag"
	"strconv"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/docblock"
)

var update = flag.Bool("update", false, "rewrite README's server-image table from the catalogue")

const (
	clientTableStart = "<!-- client images table: generated from catalog/images/*.yaml by `go test ./catalog -run TestREADMEClientTable -update` -->"
	clientTableEnd   = "<!-- end of client images table -->"
	serverTableStart = "<!-- server images table: generated from catalog/images/*.yaml by `go test ./catalog -run TestREADMEServerTable -update` -->"
	serverTableEnd   = "<!-- end of server images table -->"
)

// serverTable is README's table of the server families: images, socket
// directory, port variable, local trust, or why their clients stay on TCP.
func serverTable() string {
	var b strings.Builder
	b.WriteString("| family | images | socket directory | port variable | local connections |\n| --- | --- | --- | --- | --- |\n")
	for _, e := range Servers() {
		s := e.Server
		dir, local := "`"+s.SocketDir+"`", "trusted"
		if !s.TrustLocal {
			local = "password"
		}
		if s.No != "" {
			dir, local = "none: clients stay on TCP (UDS165)", "—"
		}
		port := "—"
		if s.PortEnv != "" {
			port = "`" + s.PortEnv + "`"
		}
		b.WriteString("| " + e.Family + " | `" + strings.Join(e.Images, "`, `") + "` | " + dir + " | " + port + " | " + local + " |\n")
	}
	return b.String()
}

// TestREADMEServerTable fails when README's server-image table is not the
// catalogue's; -update writes it.
func TestREADMEServerTable(t *testing.T) {
	docblock.Check(t, "../README.md", serverTableStart, serverTableEnd, serverTable(), *update)
}

// clientTable is README's table of the client families (every entry
// without a server: block): images, the host and URL variables that take
// the socket, those that stay on TCP, and whether it is a pooler.
func clientTable() string {
	var b strings.Builder
	b.WriteString("| family | images | to the socket | stays on TCP |\n| --- | --- | --- | --- |\n")
	n := 0
	var none []string
	for _, e := range All() {
		if e.Server != nil {
			continue
		}
		if e.NotAClient {
			none = append(none, "`"+strings.Join(e.Images, "`, `")+"`")
			continue
		}
		n++
		var yes, no []string
		for _, v := range e.Vars {
			key := "`" + v.Key + "`"
			if v.Since != nil && v.Since.Directory != v.Directory {
				// before the version on one side, from it on the other
				if v.Directory {
					yes, no = append(yes, key+" (before "+v.Since.Version+")"), append(no, key+" (from "+v.Since.Version+")")
				} else {
					no, yes = append(no, key+" (before "+v.Since.Version+")"), append(yes, key+" (from "+v.Since.Version+")")
				}
				continue
			}
			switch {
			case v.Role == RolePort:
			case v.Directory && len(v.Requires) > 0:
				var with []string
				for _, r := range v.Requires {
					w := r.Key + "=" + r.Value
					if r.OrUnset {
						w += " or unset"
					}
					with = append(with, w)
				}
				yes = append(yes, key+" (with "+strings.Join(with, ", ")+")")
			case v.Directory:
				yes = append(yes, key)
			default:
				no = append(no, key)
			}
		}
		for _, f := range e.Files {
			key := "`" + f.Key + "` in `" + f.Path + "`"
			if f.Directory {
				yes = append(yes, key)
			} else {
				no = append(no, key)
			}
		}
		family := e.Family
		if e.Pooler {
			family += " (pooler)"
		}
		b.WriteString("| " + family + " | `" + strings.Join(e.Images, "`, `") + "` | " + strings.Join(yes, ", ") + " | " + strings.Join(no, ", ") + " |\n")
	}
	b.WriteString("\n" + strconv.Itoa(n) + " client families. Images that read no connection variable (not_a_client: a service running one that inherits a value from a shared env_file gets no socket mount, UDS183): " + strings.Join(none, ", ") + ".\n")
	return b.String()
}

// TestREADMEClientTable fails when README's client-image table is not the
// catalogue's; -update writes it.
func TestREADMEClientTable(t *testing.T) {
	docblock.Check(t, "../README.md", clientTableStart, clientTableEnd, clientTable(), *update)
}
