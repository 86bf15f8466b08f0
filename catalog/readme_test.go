package catalog

import (
	"flag"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/docblock"
)

var update = flag.Bool("update", false, "rewrite README's server-image table from the catalogue")

const (
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
