package catalog

import (
	"path"
	"slices"
	"strings"
)

// Server is what a PostgreSQL server image does with its Unix socket, read
// from its Dockerfile and entrypoint.
type Server struct {
	// Entrypoint names the initialisation the image runs, which decides
	// the checks that apply to it:
	//   official  docker-library's docker-entrypoint.sh or a copy of it
	//             (an image built FROM postgres, or one that ships the
	//             script): POSTGRES_INITDB_ARGS reaches initdb, and the
	//             first start runs psql over the compiled-in socket
	//             directory only;
	//   bitnami   Bitnami's scripts (POSTGRESQL_* variables, uid 1001);
	//   sclorg    sclorg/Red Hat's run-postgresql (POSTGRESQL_* variables,
	//             uid 26);
	//   sameersbn sameersbn/docker-postgresql's entrypoint.sh (DB_USER,
	//             DB_PASS, DB_NAME; Ubuntu's PostgreSQL packages run by
	//             start-stop-daemon).
	Entrypoint string `yaml:"entrypoint"`
	// SocketDir is the directory the server creates .s.PGSQL.<port> in
	// when nothing overrides unix_socket_directories. Empty with No.
	SocketDir string `yaml:"socket_dir,omitempty"`
	// PortEnv names the variable the image takes its port from (PGPORT for
	// the official image; Bitnami's POSTGRESQL_PORT_NUMBER, which its
	// scripts write into postgresql.conf). The command line (-p, -c port=)
	// wins over it.
	PortEnv string `yaml:"port_env,omitempty"`
	// TrustLocal: a new data directory's pg_hba.conf lets local (socket)
	// connections in without a password, so whoever mounts the socket
	// volume is any database user. For the official entrypoint,
	// POSTGRES_INITDB_ARGS with --auth-local or --auth turns it off.
	TrustLocal bool `yaml:"trust_local"`
	// Local says what the image's pg_hba.conf does with local connections
	// (the fact behind TrustLocal), for the messages.
	Local string `yaml:"local"`
	// No, when set, says why the image's clients cannot be moved to its
	// socket (its socket directory is decided by whoever starts it, or its
	// local lines use peer authentication, which fails across containers):
	// the service is a PostgreSQL server, its clients stay on TCP with
	// this reason, and --db SERVICE --socket-dir SERVICE=DIR still
	// migrates it on the user's word.
	No string `yaml:"no,omitempty"`
}

// Entrypoint kinds (Server.Entrypoint).
const (
	EntrypointOfficial  = "official"
	EntrypointBitnami   = "bitnami"
	EntrypointSclorg    = "sclorg"
	EntrypointSameersbn = "sameersbn"
)

// LookupServer returns the server entry for an image reference, or nil
// (not a PostgreSQL server image the catalogue knows).
func LookupServer(image string) *Entry {
	if e := Lookup(image); e != nil && e.Server != nil {
		return e
	}
	return nil
}

// Servers returns the server entries, ordered by family.
func Servers() []*Entry {
	var out []*Entry
	for _, e := range All() {
		if e.Server != nil {
			out = append(out, e)
		}
	}
	return out
}

// IsPooler reports whether an image reference is a catalogued connection
// pooler.
func IsPooler(image string) bool {
	e := Lookup(image)
	return e != nil && e.Pooler
}

// ServerImages lists, for messages, one image of each server family whose
// clients the tool migrates: "postgres, postgis/postgis, ...".
func ServerImages() string {
	var names []string
	for _, e := range Servers() {
		if e.Server.No == "" {
			names = append(names, e.Images[0])
		}
	}
	// The official image first, then the others by image name.
	slices.SortFunc(names, func(a, b string) int {
		if (a == "postgres") != (b == "postgres") {
			if a == "postgres" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return strings.Join(names, ", ")
}

// isPattern reports whether an Images element is a path.Match pattern.
func isPattern(img string) bool { return strings.ContainsAny(img, "*[") }

// matchImage reports whether repository path repo is the image img names.
func matchImage(img, repo string) bool {
	if !isPattern(img) {
		return img == repo
	}
	ok, _ := path.Match(img, repo)
	return ok
}
