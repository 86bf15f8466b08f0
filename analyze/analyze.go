package analyze

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/internal/dockerfile"
	"github.com/uds-migrate/uds-migrate/pgserver"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// DB is a PostgreSQL server found in the project, as the analysis
// finds it; nothing writes to it afterwards (what planning decides about
// it is a dbPlan).
type DB struct {
	Name   string
	Family string
	// ConfigDir is the socket directory the image, the server's settings
	// or the flags give; SocketDir is the one shared: that of its last
	// socket mount (SocketMounts), else ConfigDir.
	ConfigDir, SocketDir string
	// SocketMounts are the service's mounts that hold its socket: a source
	// at a directory it creates its socket in, as compose merges them.
	SocketMounts []compose.Mount
	// SocketDirs is unix_socket_directories as the server's settings list
	// it (nil: the image's default).
	SocketDirs []string
	Port       int
	// PortSet: port is the image's known default or set where the tool
	// reads it (command, PGPORT, postgresql.conf); false for an unknown
	// image (a pooler) whose port only its clients show.
	PortSet bool
	// NoSocket: unix_socket_directories is empty, so no socket exists.
	NoSocket bool
	Names    []string // host names that reach it: service, container_name, hostname, aliases
	Config   types.ServiceConfig

	TrustLocal bool // local connections use the image's default trust
	// Server is the image's catalogue entry; nil for a --db service of an
	// image the catalogue does not know.
	Server *catalog.Entry
}

// trustsLocal reports whether a new data directory of the image lets
// socket connections in without a password (the catalogue's trust_local),
// which the official entrypoint's POSTGRES_INITDB_ARGS --auth-local (or
// --auth, which sets both) turns off.
func trustsLocal(fam pgserver.Family, svc types.ServiceConfig) bool {
	if fam.Server == nil || !fam.Server.Server.TrustLocal {
		return false
	}
	if fam.Name == catalog.EntrypointOfficial {
		return !setsLocalAuth(compose.EnvValue(svc, "POSTGRES_INITDB_ARGS"))
	}
	return true
}

// setsLocalAuth reports whether initdb arguments choose the local lines'
// method: --auth-local, or --auth/-A, which sets local and host alike
// (initdb documentation); --auth-host leaves local on trust.
func setsLocalAuth(args string) bool {
	for _, f := range strings.Fields(args) {
		if strings.HasSuffix(f, "=trust") {
			continue
		}
		if strings.HasPrefix(f, "--auth-local") || f == "--auth" || strings.HasPrefix(f, "--auth=") || strings.HasPrefix(f, "-A") {
			return true
		}
	}
	return false
}

// Edge is one client value that connects to a database over TCP.
type Edge struct {
	Var     compose.EnvVar
	Dialect string // its form: a name of the dialect registry
	DB      *DB
	Basis   *finding.Basis // why a host variable was trusted, when it was
	Form    consumer.Form  // a connection URI's socket form, chosen for its reader
	Port    int            // the socket file's port: DB.Port, or the client's when DB.PortSet is false
	InFile  *ConfigValue   // the value is in a configuration file, not the environment
	// RailsVar is the variable whose ERB default (database.yml) the edge edits.
	RailsVar string
	// Unset is the code default of a host variable the service leaves
	// unset: the edge sets the variable (codedefault.go).
	Unset *evidence.Default
	// Adds are variables to write after v once it is rewritten (its
	// port, variables the catalogue sets with it).
	Adds []EnvAdd
	// KeepValue: Var stays as written and only Adds are written (its
	// image reads the socket directory from another variable, which the
	// edge adds: catalog.Var.SocketVar), with the socket mount.
	KeepValue bool
	// LibraryShipped: the service's catalogued image ships the library
	// the socket form needs (junixsocket beside pgjdbc: a url variable
	// with directory: true and no extension_dir), so the migration asks
	// for no manual step (UDS101); Basis is the catalogue's.
	LibraryShipped bool
	// Override: Var is an env_file line that other uses need unchanged;
	// the edge writes the socket value into the service's own
	// environment: instead, which takes precedence (sharedEnv.override).
	Override bool
	// HostGiven, for PGHOST, are the service's connection values that
	// name a host and stay on TCP: libpq reads PGHOST only where a
	// connection string gives no host, so they do not follow it.
	HostGiven []string
}

// findDBs lists PostgreSQL services: detected image families plus --db.
func (p *Project) findDBs(opts Options) ([]*DB, error) {
	for _, name := range opts.DBs {
		if _, ok := p.Model.Services[name]; !ok {
			src := p.Sources[0]
			kn, _ := yamledit.OwnKey(src.Root, "services")
			known := slices.Sorted(maps.Keys(p.Model.Services))
			return nil, &finding.PosError{Pos: yamledit.NodePos(src, kn), Msg: fmt.Sprintf("--db %s: no such service (services: %s)", name, strings.Join(known, ", "))}
		}
	}
	if err := p.checkOptions(opts); err != nil {
		return nil, err
	}
	if err := p.checkVolumeFlag(opts); err != nil {
		return nil, err
	}
	var dbs []*DB
	for _, name := range p.ServiceOrder() {
		svc := p.Model.Services[name]
		fam, ok := pgserver.FamilyOf(svc.Image)
		if !ok && svc.Build != nil {
			fam, ok = p.builtFamily(svc)
		}
		if ok && !pgserver.RunsServer(svc) {
			ok = false // a psql/pg_dump job on the postgres image is a client
		}
		unknown := false
		if slices.Contains(opts.DBs, name) {
			if !ok {
				fam = pgserver.Family{Name: pgserver.Unknown, SocketDir: pgserver.Official.SocketDir}
				unknown = true
			}
			ok = true
		}
		if !ok {
			continue
		}
		port, dirs := pgserver.Settings(p.Project, svc)
		db := &DB{Name: name, Family: fam.Name, SocketDir: fam.SocketDir, Port: port, PortSet: !unknown || port != 5432, SocketDirs: dirs, Config: svc}
		if len(dirs) > 0 {
			db.SocketDir = dirs[0]
		}
		if fam.Server != nil {
			if n, ok := pgserver.ImagePort(svc, fam.Server.Server.PortEnv); ok {
				db.Port, db.PortSet = n, true
			}
		}
		if opts.SocketDir != "" && unknown {
			db.SocketDir = opts.SocketDir
		}
		if d, ok := opts.ServiceSocketDirs[name]; ok {
			db.SocketDir = d
		}
		db.NoSocket = pgserver.SocketsDisabled(svc)
		db.Names = compose.HostNames(svc)
		db.Server = fam.Server
		db.TrustLocal = trustsLocal(fam, svc)
		db.ConfigDir = db.SocketDir
		db.SocketMounts, db.SocketDir = p.socketMounts(db)
		dbs = append(dbs, db)
	}
	return dbs, nil
}

// socketMounts returns the mounts of db's service that hold its socket (a
// source at a directory the server creates its socket in, in the order
// compose merges them) and the directory shared: the last one's, else
// ConfigDir. A mount accepted moves the shared directory there, and the
// next must be at that directory or one of unix_socket_directories.
func (p *Project) socketMounts(db *DB) ([]compose.Mount, string) {
	var out []compose.Mount
	dir := db.ConfigDir
	for _, m := range p.ServiceMounts(db.Name) {
		if !db.ListensIn(dir, m.Target) || m.Source == "" {
			continue
		}
		dir = m.Target
		out = append(out, m)
	}
	return out, dir
}

// builtFamily reads the FROM of a service's Dockerfile when it is in the
// project: an image built FROM postgres keeps its socket directory.
func (p *Project) builtFamily(svc types.ServiceConfig) (pgserver.Family, bool) {
	return pgserver.FamilyOf(p.builtFrom(svc))
}

// builtFrom returns the image a service's Dockerfile builds FROM, when the
// Dockerfile is in the project, or "".
func (p *Project) builtFrom(svc types.ServiceConfig) string {
	if svc.Build == nil {
		return ""
	}
	data, err := p.ReadFile(p.DisplayPath(dockerfile.Path(svc.Build.Context, svc.Build.Dockerfile)))
	if err != nil {
		return ""
	}
	return dockerfile.From(data)
}

// serverNo returns the catalogue's reason why a PostgreSQL server's
// clients stay on TCP (the no: of its image's entry, or of its
// Dockerfile's FROM's), and the entry's citation ("catalogue FAMILY:
// SOURCE"); "" for a server the catalogue does not refuse.
func (p *Project) serverNo(svc types.ServiceConfig) (reason, cite string) {
	e := catalog.LookupServer(svc.Image)
	if (e == nil || e.Server.No == "") && svc.Build != nil {
		e = catalog.LookupServer(p.builtFrom(svc))
	}
	if e == nil || e.Server.No == "" {
		return "", ""
	}
	return e.Server.No, hostvar.CatalogueBasis(e, "").Citation()
}

// imageText names a service's image for messages: `image "x"`, or the
// Dockerfile's FROM for a service built here.
func (p *Project) imageText(svc types.ServiceConfig) string {
	if svc.Image != "" || svc.Build == nil {
		return fmt.Sprintf("image %q", svc.Image)
	}
	if from := p.builtFrom(svc); from != "" {
		return fmt.Sprintf("built FROM %q", from)
	}
	return "built from " + p.DisplayPath(svc.Build.Context)
}

// checkVolumeFlag refuses a --volume that the project already mounts for
// something else (a data volume): the socket would land among the
// database's files and every client would mount them.
func (p *Project) checkVolumeFlag(opts Options) error {
	if opts.Volume == "" {
		return nil
	}
	for _, name := range p.ServiceOrder() {
		for _, m := range p.ServiceMounts(name) {
			if m.Source != opts.Volume || m.Bind {
				continue
			}
			if fam, ok := pgserver.FamilyOf(p.Model.Services[name].Image); ok && m.Target == path.Clean(fam.SocketDir) {
				continue
			}
			if strings.HasPrefix(m.Target, path.Clean(opts.MountPath)) {
				continue
			}
			n := yamledit.Deref(m.Node)
			return &finding.PosError{Pos: yamledit.NodePos(m.Src, n),
				Msg: fmt.Sprintf("--volume %s: %s already mounts that volume at %s; the socket volume must be a volume of its own", opts.Volume, name, m.Target)}
		}
	}
	return nil
}

// volumeNameRE is compose's rule for volume names.
var volumeNameRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)

// checkOptions rejects flag values that would produce a broken project.
func (p *Project) checkOptions(opts Options) error {
	src := p.Sources[0]
	bad := func(format string, a ...any) error {
		return &finding.PosError{Pos: finding.Pos{File: src.Path}, Msg: fmt.Sprintf(format, a...)}
	}
	if mp := path.Clean(opts.MountPath); !path.IsAbs(opts.MountPath) || mp == "/" {
		return bad("--mount-path %q: want an absolute directory other than /", opts.MountPath)
	}
	if err := p.checkSocketDirs(opts); err != nil {
		return &finding.PosError{Pos: finding.Pos{File: src.Path}, Msg: err.Error()}
	}
	if f := opts.JDBCFactory; f != "" && f != dialect.JDBCFactoryArg && f != dialect.JDBCFactoryURI && f != dialect.JDBCFactorySysprop {
		return bad("--jdbc-factory %q: want factoryarg, uri or sysprop", f)
	}
	if opts.Volume != "" && !volumeNameRE.MatchString(opts.Volume) {
		return bad("--volume %q: a volume name is letters, digits, _, . and - (starting with a letter or digit)", opts.Volume)
	}
	if opts.ManyProjects {
		return p.checkConsumerNames(opts.Consumers, bad)
	}
	for _, list := range [][]string{opts.Only, opts.Exclude} {
		for _, name := range list {
			if _, ok := p.Model.Services[name]; !ok {
				return bad("--only/--exclude %s: no such service (services: %s)", name, strings.Join(slices.Sorted(maps.Keys(p.Model.Services)), ", "))
			}
		}
	}
	if err := p.checkHostVars(opts.HostVars, bad); err != nil {
		return err
	}
	return p.checkConsumers(opts.Consumers, bad)
}

// checkSocketDirs rejects --socket-dir values that are not absolute
// directories, name no --db service, or (the plain form) would apply to no
// service: a detected image keeps its own socket directory.
func (p *Project) checkSocketDirs(opts Options) error {
	dirs := map[string]string{"": opts.SocketDir}
	for svc, d := range opts.ServiceSocketDirs {
		dirs[svc] = d
	}
	for _, svc := range slices.Sorted(maps.Keys(dirs)) {
		d := dirs[svc]
		flag := "--socket-dir " + d
		if svc != "" {
			flag = "--socket-dir " + svc + "=" + d
		}
		if d == "" && svc == "" {
			continue
		}
		if !path.IsAbs(d) || path.Clean(d) == "/" {
			return fmt.Errorf("%s: want an absolute directory other than /", flag)
		}
		if _, ok := p.Model.Services[svc]; svc != "" && !ok {
			return fmt.Errorf("%s: no such service", flag)
		}
		if svc != "" && !slices.Contains(opts.DBs, svc) && !p.knownImage(svc) {
			return fmt.Errorf("%s: %s is not a PostgreSQL image the tool knows; name it with --db %s too", flag, svc, svc)
		}
	}
	if opts.SocketDir == "" {
		return nil
	}
	for _, name := range opts.DBs {
		if !p.knownImage(name) {
			return nil
		}
	}
	return fmt.Errorf("--socket-dir %s applies to the --db services whose image the tool does not know, and there is none: a detected image keeps its socket directory; to set one service's, write --socket-dir SERVICE=DIR", opts.SocketDir)
}

// knownImage reports whether service name runs an image family the tool
// knows (by reference or by its Dockerfile's FROM).
func (p *Project) knownImage(name string) bool {
	svc := p.Model.Services[name]
	if _, ok := pgserver.FamilyOf(svc.Image); ok {
		return true
	}
	if svc.Build == nil {
		return false
	}
	_, ok := p.builtFamily(svc)
	return ok
}
