package rewrite

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// dbService is a PostgreSQL server found in the project.
type dbService struct {
	name      string
	family    string
	socketDir string
	// socketDirs is unix_socket_directories as the server's settings list
	// it (nil: the image's default); socketDir is the one shared.
	socketDirs []string
	port       int
	// portSet: port is the image's known default or set where the tool
	// reads it (command, PGPORT, postgresql.conf); false for an unknown
	// image (a pooler) whose port only its clients show.
	portSet bool
	// noSocket: unix_socket_directories is empty, so no socket exists.
	noSocket bool
	names    []string // host names that reach it: service, container_name, hostname, aliases
	svc      types.ServiceConfig

	// Socket volume: an existing mount at socketDir, or the one to add.
	volume   string
	bind     bool
	existing *mountRef // the mount already at socketDir, if any
	// renamedVolume: <name>-socket was taken, volume is a fresh name.
	renamedVolume bool
	trustLocal    bool // local connections use the image's default trust
	// server is the image's catalogue entry; nil for a --db service of an
	// image the catalogue does not know.
	server *catalog.Entry
}

// trustsLocal reports whether a new data directory of the image lets
// socket connections in without a password (the catalogue's trust_local),
// which the official entrypoint's POSTGRES_INITDB_ARGS --auth-local (or
// --auth, which sets both) turns off.
func trustsLocal(fam imageFamily, svc types.ServiceConfig) bool {
	if fam.Server == nil || !fam.Server.Server.TrustLocal {
		return false
	}
	if fam.Name == catalog.EntrypointOfficial {
		return !setsLocalAuth(envValue(svc, "POSTGRES_INITDB_ARGS"))
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

// mountRef is a volumes: entry as written in YAML.
type mountRef struct {
	src      *Source
	node     *yaml.Node // the list item
	source   string
	target   string
	readOnly bool
	bind     bool
}

// edge is one client value that connects to a database over TCP.
type edge struct {
	v       envVar
	dialect string // DialectJDBC, DialectURI, DialectDSN
	db      *dbService
	basis   *Basis        // why a host variable was trusted, when it was
	form    consumer.Form // a connection URI's socket form, chosen for its reader
	port    int           // the socket file's port: db.port, or the client's when db.portSet is false
	cfg     *configValue  // the value is in a configuration file, not the environment
	// railsVar is the variable whose ERB default (database.yml) the edge edits.
	railsVar string
	// unset is the code default of a host variable the service leaves
	// unset: the edge sets the variable (codedefault.go).
	unset *evidence.Default
}

// envEntry is one environment variable as written in a service.
type envEntry struct {
	key    string
	node   *yaml.Node
	prefix string
	inFlow bool
	// passthrough is a list item "- KEY" or a map entry "KEY:" with no
	// value: compose takes the value from the environment it
	// interpolates with.
	passthrough bool
}

// serviceNode finds the YAML mapping of a service in the last source that
// defines it (later -f files override earlier ones).
func (p *project) serviceNode(name string) (*Source, *yaml.Node) {
	for i := len(p.sources) - 1; i >= 0; i-- {
		_, svcs := yamledit.OwnKey(p.sources[i].Root, "services")
		if _, n := yamledit.OwnKey(yamledit.Deref(svcs), name); n != nil {
			return p.sources[i], yamledit.Deref(n)
		}
	}
	return nil, nil
}

// servicesMapping returns the services: mapping of one file (anchors
// followed), or nil when the file has none.
func servicesMapping(src *Source) *yaml.Node {
	_, svcs := yamledit.OwnKey(src.Root, "services")
	if svcs = yamledit.Deref(svcs); svcs == nil || svcs.Kind != yaml.MappingNode {
		return nil
	}
	return svcs
}

// serviceOrder lists service names in the order the first file writes them,
// then any that only later files add: output and findings follow the file.
func (p *project) serviceOrder() []string {
	var names []string
	seen := map[string]bool{}
	for _, src := range p.sources {
		svcs := servicesMapping(src)
		if svcs == nil {
			continue
		}
		for i := 0; i+1 < len(svcs.Content); i += 2 {
			n := svcs.Content[i].Value
			if _, ok := p.model.Services[n]; ok && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// findDBs lists PostgreSQL services: detected image families plus --db.
func (p *project) findDBs(opts Options) ([]*dbService, error) {
	for _, name := range opts.DBs {
		if _, ok := p.model.Services[name]; !ok {
			src := p.sources[0]
			kn, _ := yamledit.OwnKey(src.Root, "services")
			known := slices.Sorted(mapsKeys(p.model.Services))
			return nil, &PosError{Pos: yamledit.NodePos(src, kn), Msg: fmt.Sprintf("--db %s: no such service (services: %s)", name, strings.Join(known, ", "))}
		}
	}
	if err := p.checkOptions(opts); err != nil {
		return nil, err
	}
	if err := p.checkVolumeFlag(opts); err != nil {
		return nil, err
	}
	var dbs []*dbService
	for _, name := range p.serviceOrder() {
		svc := p.model.Services[name]
		fam, ok := familyOf(svc.Image)
		if !ok && svc.Build != nil {
			fam, ok = p.builtFamily(svc)
		}
		if ok && !runsServer(svc) {
			ok = false // a psql/pg_dump job on the postgres image is a client
		}
		unknown := false
		if slices.Contains(opts.DBs, name) {
			if !ok {
				fam = imageFamily{Name: familyUnknown, SocketDir: familyOfficial.SocketDir}
				unknown = true
			}
			ok = true
		}
		if !ok {
			continue
		}
		port, dirs := p.serverSettings(svc)
		db := &dbService{name: name, family: fam.Name, socketDir: fam.SocketDir, port: port, portSet: !unknown || port != 5432, socketDirs: dirs, svc: svc}
		if len(dirs) > 0 {
			db.socketDir = dirs[0]
		}
		if fam.Server != nil {
			if n, ok := imagePort(svc, fam.Server.Server.PortEnv); ok {
				db.port, db.portSet = n, true
			}
		}
		if opts.SocketDir != "" && unknown {
			db.socketDir = opts.SocketDir
		}
		if d, ok := opts.ServiceSocketDirs[name]; ok {
			db.socketDir = d
		}
		db.noSocket = socketsDisabled(svc)
		db.names = hostNames(svc)
		db.server = fam.Server
		db.trustLocal = trustsLocal(fam, svc)
		dbs = append(dbs, db)
	}
	return dbs, nil
}

// hostNames lists the names under which other services reach svc on the
// compose networks.
func hostNames(svc types.ServiceConfig) []string {
	names := []string{svc.Name}
	if svc.ContainerName != "" {
		names = append(names, svc.ContainerName)
	}
	if svc.Hostname != "" {
		// Not hostname.domainname: the engine's DNS does not answer it
		// (see names.go).
		names = append(names, svc.Hostname)
	}
	for _, nw := range svc.Networks {
		if nw != nil {
			names = append(names, nw.Aliases...)
		}
	}
	return names
}

// linkAliases maps the aliases a client gives to linked services
// ("db:database" → database → db).
func linkAliases(svc types.ServiceConfig) map[string]string {
	out := map[string]string{}
	for _, l := range append(append([]string{}, svc.Links...), svc.ExternalLinks...) {
		target, alias, ok := strings.Cut(l, ":")
		if !ok {
			alias = target
		}
		out[strings.ToLower(alias)] = target
	}
	return out
}

func envValue(svc types.ServiceConfig, key string) string {
	if v, ok := svc.Environment[key]; ok && v != nil {
		return *v
	}
	return ""
}

// envEntries lists the environment variables written in a service mapping,
// in either form (map or "- KEY=value" list), following merge keys: for a
// map, keys written in the service win over merged ones.
func envEntries(svc *yaml.Node) []envEntry {
	_, env := yamledit.MapGet(svc, "environment")
	env = yamledit.Deref(env)
	if env == nil {
		return nil
	}
	inFlow := env.Style&yaml.FlowStyle != 0
	var out []envEntry
	switch env.Kind {
	case yaml.SequenceNode:
		for _, it := range env.Content {
			it = yamledit.Deref(it)
			if it.Kind != yaml.ScalarNode {
				continue
			}
			k, _, ok := strings.Cut(it.Value, "=")
			if !ok {
				// prefix: an edit writes KEY=value, not a bare value
				// (which would pass a variable of that name through).
				out = append(out, envEntry{key: it.Value, node: it, prefix: it.Value + "=", inFlow: inFlow, passthrough: true})
				continue
			}
			out = append(out, envEntry{key: k, node: it, prefix: k + "=", inFlow: inFlow})
		}
	case yaml.MappingNode:
		seen := map[string]bool{}
		var walk func(m *yaml.Node)
		walk = func(m *yaml.Node) {
			for i := 0; i+1 < len(m.Content); i += 2 {
				k := m.Content[i]
				if yamledit.IsMergeKey(k) || seen[k.Value] {
					continue
				}
				seen[k.Value] = true
				v := m.Content[i+1]
				if v.Kind == yaml.AliasNode {
					v = v.Alias
				}
				if v.Kind == yaml.ScalarNode {
					// KEY: with no value (or null) passes the shell's
					// value through, as "- KEY" does (Compose
					// Specification, services.environment).
					out = append(out, envEntry{key: k.Value, node: v, inFlow: m.Style&yaml.FlowStyle != 0, passthrough: v.Tag == "!!null"})
				}
			}
			for _, src := range yamledit.MergeSources(m) {
				walk(src)
			}
		}
		walk(env)
	}
	return out
}

// mounts lists the volumes: entries of a service as written (following
// merge keys), with short and long syntax parsed.
func (p *project) mounts(src *Source, svcNode *yaml.Node) (seq *yaml.Node, out []mountRef) {
	_, seq = yamledit.MapGet(svcNode, "volumes")
	seq = yamledit.Deref(seq)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return seq, nil
	}
	for _, it := range seq.Content {
		m := mountRef{src: src, node: it}
		it = yamledit.Deref(it)
		switch it.Kind {
		case yaml.ScalarNode:
			v, err := p.interpolate(it.Value)
			if err != nil {
				continue
			}
			parts := strings.Split(v, ":")
			if len(parts) < 2 {
				continue
			}
			m.source, m.target = parts[0], parts[1]
			if len(parts) > 2 {
				m.readOnly = slices.Contains(strings.Split(parts[2], ","), "ro")
			}
			m.bind = isBindSource(m.source)
		case yaml.MappingNode:
			get := func(k string) string {
				_, n := yamledit.MapGet(it, k)
				if n = yamledit.Deref(n); n == nil || n.Kind != yaml.ScalarNode {
					return ""
				}
				v, _ := p.interpolate(n.Value)
				return v
			}
			m.source, m.target = get("source"), get("target")
			m.readOnly = get("read_only") == "true"
			m.bind = get("type") == "bind"
			if get("type") == "tmpfs" {
				m.source = ""
			}
		default:
			continue
		}
		m.target = path.Clean(m.target)
		out = append(out, m)
	}
	return seq, out
}

// isBindSource tells a host path from a volume name in short syntax.
func isBindSource(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "$")
}

func mapsKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// builtFamily reads the FROM of a service's Dockerfile when it is in the
// project: an image built FROM postgres keeps its socket directory.
func (p *project) builtFamily(svc types.ServiceConfig) (imageFamily, bool) {
	return familyOf(p.builtFrom(svc))
}

// builtFrom returns the image a service's Dockerfile builds FROM, when the
// Dockerfile is in the project, or "".
func (p *project) builtFrom(svc types.ServiceConfig) string {
	if svc.Build == nil {
		return ""
	}
	df := svc.Build.Dockerfile
	if df == "" {
		df = "Dockerfile"
	}
	if !filepath.IsAbs(df) {
		df = filepath.Join(svc.Build.Context, df)
	}
	data, err := p.readFile(p.displayPath(df))
	if err != nil {
		return ""
	}
	return dockerfileFrom(data)
}

// serverNo returns the catalogue's reason why a PostgreSQL server's
// clients stay on TCP (serverNo of its image, or of its Dockerfile's FROM),
// and the catalogue family.
func (p *project) serverNo(svc types.ServiceConfig) (reason, family string) {
	if no, fam := serverNo(svc.Image); no != "" || svc.Build == nil {
		return no, fam
	}
	return serverNo(p.builtFrom(svc))
}

// imageText names a service's image for messages: `image "x"`, or the
// Dockerfile's FROM for a service built here.
func (p *project) imageText(svc types.ServiceConfig) string {
	if svc.Image != "" || svc.Build == nil {
		return fmt.Sprintf("image %q", svc.Image)
	}
	if from := p.builtFrom(svc); from != "" {
		return fmt.Sprintf("built FROM %q", from)
	}
	return "built from " + p.displayPath(svc.Build.Context)
}

// clientTools are programs of the postgres image that run as clients.
var clientTools = map[string]bool{"psql": true, "pg_dump": true, "pg_dumpall": true, "pg_restore": true, "pg_isready": true, "pgbench": true, "pg_basebackup": true, "sh": true, "bash": true, "/bin/sh": true, "/bin/bash": true}

// runsServer reports whether a service on a PostgreSQL image runs the
// server: its own entrypoint and a command that is the server or its flags,
// not a client tool or a shell script.
func runsServer(svc types.ServiceConfig) bool {
	if ep := svc.Entrypoint; len(ep) > 0 {
		first := filepath.Base(ep[0])
		if shells[first] {
			// entrypoint: [bash, -c] wrapping "... exec docker-entrypoint.sh postgres ..."
			return wrapsServer(strings.Join(append(append([]string{}, ep...), svc.Command...), " "))
		}
		if !strings.Contains(first, "entrypoint") && first != "postgres" {
			return false
		}
	}
	if cmd := svc.Command; len(cmd) > 0 {
		first := cmd[0]
		if clientTools[first] || clientTools[filepath.Base(first)] {
			return wrapsServer(strings.Join(cmd, " "))
		}
	}
	return true
}

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true}

// wrapsServer reports whether a shell command line starts the server
// through the image's entrypoint or postgres itself.
func wrapsServer(text string) bool {
	return strings.Contains(text, "docker-entrypoint") || strings.Contains(text, "exec postgres")
}

// checkVolumeFlag refuses a --volume that the project already mounts for
// something else (a data volume): the socket would land among the
// database's files and every client would mount them.
func (p *project) checkVolumeFlag(opts Options) error {
	if opts.Volume == "" {
		return nil
	}
	for _, name := range p.serviceOrder() {
		for _, m := range p.serviceMounts(name) {
			if m.source != opts.Volume || m.bind {
				continue
			}
			if fam, ok := familyOf(p.model.Services[name].Image); ok && m.target == path.Clean(fam.SocketDir) {
				continue
			}
			if strings.HasPrefix(m.target, path.Clean(opts.MountPath)) {
				continue
			}
			n := yamledit.Deref(m.node)
			return &PosError{Pos: yamledit.NodePos(m.src, n),
				Msg: fmt.Sprintf("--volume %s: %s already mounts that volume at %s; the socket volume must be a volume of its own", opts.Volume, name, m.target)}
		}
	}
	return nil
}

// volumeNameRE is compose's rule for volume names.
var volumeNameRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)

// checkOptions rejects flag values that would produce a broken project.
func (p *project) checkOptions(opts Options) error {
	src := p.sources[0]
	bad := func(format string, a ...any) error {
		return &PosError{Pos: Pos{File: src.Path}, Msg: fmt.Sprintf(format, a...)}
	}
	if mp := path.Clean(opts.MountPath); !path.IsAbs(opts.MountPath) || mp == "/" {
		return bad("--mount-path %q: want an absolute directory other than /", opts.MountPath)
	}
	if err := p.checkSocketDirs(opts); err != nil {
		return &PosError{Pos: Pos{File: src.Path}, Msg: err.Error()}
	}
	if f := opts.JDBCFactory; f != "" && f != JDBCFactoryArg && f != JDBCFactoryURI && f != JDBCFactorySysprop {
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
			if _, ok := p.model.Services[name]; !ok {
				return bad("--only/--exclude %s: no such service (services: %s)", name, strings.Join(slices.Sorted(mapsKeys(p.model.Services)), ", "))
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
func (p *project) checkSocketDirs(opts Options) error {
	dirs := map[string]string{"": opts.SocketDir}
	for svc, d := range opts.ServiceSocketDirs {
		dirs[svc] = d
	}
	for _, svc := range slices.Sorted(mapsKeys(dirs)) {
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
		if _, ok := p.model.Services[svc]; svc != "" && !ok {
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
func (p *project) knownImage(name string) bool {
	svc := p.model.Services[name]
	if _, ok := familyOf(svc.Image); ok {
		return true
	}
	if svc.Build == nil {
		return false
	}
	_, ok := p.builtFamily(svc)
	return ok
}
