package rewrite

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
)

// imageFamily describes where a PostgreSQL image keeps its socket.
type imageFamily struct {
	// Name is the initialisation the image runs (catalog.Server's
	// Entrypoint: "official", "bitnami", "sclorg"), or familyUnknown.
	Name      string
	SocketDir string
	// Server is the catalogue's fact sheet (catalog/images/*.yaml with a
	// server: block), nil for a --db service the catalogue does not know.
	Server *catalog.Entry
}

// familyOfficial is the official image's layout, which a --db service of
// an unknown image is assumed to share until --socket-dir says otherwise.
var familyOfficial = imageFamily{Name: catalog.EntrypointOfficial, SocketDir: "/var/run/postgresql"}

// familyUnknown is the family of a --db service whose image the tool does
// not recognise (a pooler, a vendor's postgres build).
const familyUnknown = "--db"

// poolerOf recognises the connection poolers of the catalogue (pooler:
// true): clients that reach one talk to the pooler, not to PostgreSQL, so
// their values stay on TCP unless --db names the pooler.
func poolerOf(image string) bool {
	return catalog.IsPooler(image)
}

// dockerfileFrom returns the image the last stage of a Dockerfile builds
// FROM, or "" (a build argument in the reference cannot be resolved here).
func dockerfileFrom(data []byte) string {
	from := ""
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && strings.EqualFold(f[0], "FROM") {
			ref := f[1]
			if strings.HasPrefix(ref, "--") && len(f) >= 3 {
				ref = f[2]
			}
			from = ref
		}
	}
	if strings.Contains(from, "$") {
		return ""
	}
	return from
}

// repository returns the repository path of an image reference, lower-cased,
// without registry host, tag or digest: "docker.io/library/postgres:16" →
// "library/postgres".
func repository(image string) string {
	ref := strings.ToLower(strings.TrimSpace(image))
	if i := strings.Index(ref, "@"); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref = ref[:i]
	}
	parts := strings.Split(ref, "/")
	// The first component is a registry host when it has a dot or a port,
	// or is localhost (distribution/reference rules).
	if len(parts) > 1 && (strings.ContainsAny(parts[0], ".:") || parts[0] == "localhost") {
		parts = parts[1:]
	}
	return strings.Join(parts, "/")
}

// familyOf recognises PostgreSQL server images from the catalogue (an
// entry with a server: block: the official image, images built FROM it,
// Bitnami's, sclorg's). ok is false for anything else, poolers included,
// and for a catalogued server whose socket the tool cannot set up (no:):
// its clients are told why (serverNo).
func familyOf(image string) (imageFamily, bool) {
	e := catalog.LookupServer(image)
	if e == nil || e.Server.No != "" {
		return imageFamily{}, false
	}
	return imageFamily{Name: e.Server.Entrypoint, SocketDir: e.Server.SocketDir, Server: e}, true
}

// serverNo returns the catalogue's reason why a server image's clients
// stay on TCP, and the family it is read from, or "" for any other image.
func serverNo(image string) (reason, family string) {
	if e := catalog.LookupServer(image); e != nil {
		return e.Server.No, e.Family
	}
	return "", ""
}
