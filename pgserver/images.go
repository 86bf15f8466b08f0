package pgserver

import (
	"github.com/uds-migrate/uds-migrate/catalog"
)

// Family describes where a PostgreSQL image keeps its socket.
type Family struct {
	// Name is the initialisation the image runs (catalog.Server's
	// Entrypoint: "official", "bitnami", "sclorg", "sameersbn"), or Unknown.
	Name      string
	SocketDir string
	// Server is the catalogue's fact sheet (catalog/images/*.yaml with a
	// server: block), nil for a --db service the catalogue does not know.
	Server *catalog.Entry
}

// Official is the official image's layout, which a --db service of
// an unknown image is assumed to share until --socket-dir says otherwise.
var Official = Family{Name: catalog.EntrypointOfficial, SocketDir: "/var/run/postgresql"}

// Unknown is the family of a --db service whose image the tool does
// not recognise (a pooler, a vendor's postgres build).
const Unknown = "--db"

// IsPooler recognises the connection poolers of the catalogue (pooler:
// true): clients that reach one talk to the pooler, not to PostgreSQL, so
// their values stay on TCP unless --db names the pooler.
func IsPooler(image string) bool {
	return catalog.IsPooler(image)
}

// FamilyOf recognises PostgreSQL server images from the catalogue (an
// entry with a server: block: the official image, images built FROM it,
// Bitnami's, sclorg's). ok is false for anything else, poolers included,
// and for a catalogued server whose socket the tool cannot set up (no:):
// its clients are told why (serverNo).
func FamilyOf(image string) (Family, bool) {
	e := catalog.LookupServer(image)
	if e == nil || e.Server.No != "" {
		return Family{}, false
	}
	return Family{Name: e.Server.Entrypoint, SocketDir: e.Server.SocketDir, Server: e}, true
}

// ServerNo returns the catalogue's reason why a server image's clients
// stay on TCP, and the family it is read from, or "" for any other image.
func ServerNo(image string) (reason, family string) {
	if e := catalog.LookupServer(image); e != nil {
		return e.Server.No, e.Family
	}
	return "", ""
}
