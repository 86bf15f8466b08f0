package analyze

import (
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/finding"
)

// Options selects what a run of migrate, validate or revert does. The zero
// value is not useful; start from DefaultOptions.
type Options struct {
	// ManyProjects: the run covers several projects, so a service named by
	// --only, --exclude, --host-var or --consumer may belong to another
	// of them; only the syntax of those flags is checked.
	ManyProjects bool
	// DBs names services to treat as PostgreSQL servers in addition to the
	// detected image families.
	DBs []string
	// Volume names the socket volume; "" means "<db-service>-socket".
	Volume string
	// MountPath is where clients mount the socket volume (read-only).
	MountPath string
	// Env is the process environment ("KEY=value") used for interpolation,
	// as compose uses it; nil means none.
	Env []string
	// SocketDir is the socket directory inside the --db services whose
	// image the tool does not know (a pooler, a custom build); detected
	// images keep their own (moving the official image's breaks its init).
	SocketDir string
	// ServiceSocketDirs sets the socket directory of named database
	// services (--socket-dir SERVICE=DIR), whatever their image.
	ServiceSocketDirs map[string]string
	// ProjectDir is compose's --project-directory: relative paths and the
	// default .env resolve against it; "" means the first file's directory.
	ProjectDir string
	// EnvFiles are compose's --env-file files for interpolation; empty
	// means ProjectDir/.env when it exists.
	EnvFiles []string
	// Profiles limits the services to these compose profiles; empty means
	// every service, whatever its profiles (a migration must cover them).
	Profiles []string
	// BindMount, when set, uses this host folder as the socket directory
	// instead of a named volume (the hand-made layout; see UDS106).
	BindMount string
	// AuthLocal, when set (scram-sha-256, md5), adds
	// POSTGRES_INITDB_ARGS=--auth-local=AuthLocal to official-image
	// databases so socket connections need a password.
	AuthLocal string
	// JDBCFactory picks junixsocket's factory style for JDBC URLs:
	// JDBCFactoryArg (default), JDBCFactoryURI or JDBCFactorySysprop.
	JDBCFactory string
	// Only restricts migration to these client services (empty: all).
	Only []string
	// Exclude leaves these client services alone.
	Exclude []string
	// HostVars are "SERVICE/KEY" host variables the user vouches for
	// (--host-var): the application hands them to a driver that takes a
	// socket directory as host, so they become MountPath.
	HostVars []string
	// Consumers are "SERVICE/KEY=READER" or "SERVICE/KEY=FORM" (--consumer):
	// the user names the program that reads a connection URI (a row of
	// consumer/readers.yaml) or the socket form it takes (empty,
	// localhost), where the project does not show it.
	Consumers []string
	// DropTCP makes app servers behind a reverse proxy listen on the
	// socket instead of their TCP port (default: both, so healthchecks
	// and waits on the port keep working).
	DropTCP bool
	// ReadFile reads files other than the compose files (nginx
	// configuration, app server configuration, env files); nil means
	// regular files only, up to MaxFileSize. Migrate's own verification
	// passes an overlay so a second run sees the migrated content.
	ReadFile func(path string) ([]byte, error)
}

// DefaultOptions returns the options the CLI starts from.
func DefaultOptions() Options {
	return Options{MountPath: "/var/run/postgresql"}
}

// Result is what Migrate returns: every input file with its new bytes, the
// connection values changed, the findings, and the databases found.
type Result struct {
	Files    []compose.FileResult
	Changes  []finding.Change
	Findings []finding.Finding
	DBs      []DBInfo
	// NothingReason says why no edit was made, when none was.
	NothingReason string
	// Notes are lines for people that follow NothingReason: what the
	// command does not cover in this project.
	Notes []string
	// SocketsKept counts the socket-form values revert leaves as they are
	// (UDS111: in a configuration file, or in a form it cannot read): the
	// project still reaches a database through a socket.
	SocketsKept int
}

// Changed reports whether any file changes.
func (r *Result) Changed() bool {
	for _, f := range r.Files {
		if f.Changed {
			return true
		}
	}
	return false
}

// DBInfo describes one PostgreSQL service found.
type DBInfo struct {
	Service string
	Family  string // "official", "bitnami", "--db": the initialisation it runs
	// Image is the catalogue family of an image that is not the official
	// one but runs its entrypoint (pgautoupgrade, postgis, timescaledb),
	// "" for the official image and a --db service.
	Image     string
	SocketDir string // inside the db container
	Port      int    // server port inside the container
	Volume    string // socket volume (named volume or bind source)
	Names     []string
}
