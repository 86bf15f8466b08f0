package rewrite

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// planner decides the edits and findings for one project. Its steps (see
// steps) write into the shared plan (edits, findings, changes, the
// bookkeeping of compose and other file edits); the state only one kind
// of step needs is grouped by that owner.
type planner struct {
	p        *project
	opts     Options
	dbs      []*dbService
	editors  map[*Source]*yamledit.Editor // edits per compose file
	findings findingList
	refused  map[string]bool // paths reported with UDS172 (refuse)
	tooBig   map[string]bool // configuration files reported with UDS173 (overLimit)
	changes  []Change

	compose composeEdits // the compose-file editor's bookkeeping
	other   otherFiles   // edits of files other than the compose files
	clients clientState  // client values: what the client steps decided per service
	configs configState  // connection values in application configuration files
	revert  revertState  // revert only
}

// composeEdits is what the compose-file editor remembers between edits.
type composeEdits struct {
	appended map[*yaml.Node]map[string]bool // items appended per sequence
	newKeys  []*pendingKey                  // volumes: keys to add, written by finish
	topAdded map[topVolume]bool             // top-level volumes declared in this run, per file
	reserved map[string]bool                // socket volume names already picked (socketVolumeName)
	newTop   map[*Source][]string           // volumes for a top-level section to create
}

// otherFiles are the edits of files other than the compose files (env
// files, configuration files, nginx files).
type otherFiles struct {
	extra     []FileResult          // their results, in edit order
	fileEdits map[string]*fileEdits // pending edits per path
	fileOrder []string
}

// clientState is what the client steps decided per service.
type clientState struct {
	clientPaths map[string][]string // socket mount paths given to each client in this run
	sysprop     map[string]string   // --jdbc-factory sysprop: the socket file per service
	sslClients  map[string]bool     // services with a libpq socket value (PGSSLMODE applies)
	javaWarn    map[string]bool     // services already told about junixsocket (UDS101)
	// keepPGSSLMode: services whose PGSSLMODE stays because some value of
	// theirs stays on TCP (pgsslmode.go); pghostOnSocket: of those, the
	// ones whose PGHOST moved to the socket.
	keepPGSSLMode, pghostOnSocket map[string]bool
	migratedPos                   map[string]bool // Pos.String() of every environment value rewritten to socket form
}

// configState is what the configuration-file steps found.
type configState struct {
	scopeFiles   map[string][]string // project files reaching each service (evidenceScope)
	evidenceRoot string              // the repository holding the project (evidenceRoot)
	cfgSocket    map[string]string   // service → "file:line" of a socket-form value it reads from a configuration file
	cfgDone      map[string]bool     // configuration file values edited ("path:offset")
}

// revertState is what revert removes.
type revertState struct {
	removedItems map[*yaml.Node]int   // items removed per volumes: list
	dropTop      map[*Source][]string // top-level volumes to remove
}

func newPlanner(p *project, opts Options) *planner {
	return &planner{p: p, opts: opts,
		editors: map[*Source]*yamledit.Editor{},
		compose: composeEdits{appended: map[*yaml.Node]map[string]bool{}, topAdded: map[topVolume]bool{}, reserved: map[string]bool{}, newTop: map[*Source][]string{}},
		clients: clientState{clientPaths: map[string][]string{}, sysprop: map[string]string{}, sslClients: map[string]bool{}, javaWarn: map[string]bool{},
			keepPGSSLMode: map[string]bool{}, pghostOnSocket: map[string]bool{}, migratedPos: map[string]bool{}},
		configs: configState{cfgSocket: map[string]string{}, cfgDone: map[string]bool{}}}
}

// ed is the editor of one compose file (or a file named by extends).
func (pl *planner) ed(src *Source) *yamledit.Editor {
	e := pl.editors[src]
	if e == nil {
		e = yamledit.NewEditor(src)
		pl.editors[src] = e
	}
	return e
}

// editFailed reports an edit the editor could not make (a *PosError at
// the node it was asked to change) as UDS111; nil is no failure.
func (pl *planner) editFailed(err error, service, key string) bool {
	var pe *PosError
	if !errors.As(err, &pe) {
		return false
	}
	pl.findings.add("UDS111", pe.Pos, service, key, pe.Msg)
	return true
}

// prepareDB finds what is already mounted at the socket directory and
// repairs what would stop the server from creating its socket.
func (pl *planner) prepareDB(db *dbService) {
	ms := pl.p.serviceMounts(db.name)
	db.volume = pl.opts.Volume
	if pl.opts.BindMount != "" {
		db.volume, db.bind = pl.opts.BindMount, true
	}
	for _, ent := range pl.p.serviceEnv(db.name) {
		if contains(serverClientVars, ent.key) {
			pl.findings.add("UDS133", ent.pos, db.name, ent.key, serverEnvProblem(db.name, ent.key))
		}
	}
	if msg := initSocketProblem(db); msg != "" {
		s, kn := pl.p.settingsNode(db.name)
		pl.findings.add("UDS132", yamledit.NodePos(s, kn), db.name, "command", msg)
	}
	for i := range ms {
		m := ms[i]
		if !db.listensIn(m.target) || m.source == "" {
			continue
		}
		db.socketDir = m.target
		db.existing, db.volume, db.bind = &ms[i], m.source, m.bind
		if m.readOnly {
			pl.makeWritable(db, m)
		}
		if m.bind {
			pl.findings.add("UDS106", yamledit.NodePos(m.src, m.node), db.name, "volumes",
				fmt.Sprintf("the socket directory %s is a host bind mount (%s): it is root-owned, so Postgres may fail to create its lock file (rootless Docker, user:), and Docker Desktop on macOS cannot pass sockets through it; a named volume avoids both", db.socketDir, m.source))
		}
	}
	if db.volume == "" {
		db.volume, db.renamedVolume = pl.socketVolumeName(db.name + "-socket")
	}
}

// makeWritable drops :ro / read_only from the database's socket mount:
// Postgres must create its socket and lock file there.
func (pl *planner) makeWritable(db *dbService, m mountRef) {
	n := yamledit.Deref(m.node)
	var target *yaml.Node
	var newVal string
	switch n.Kind {
	case yaml.ScalarNode:
		parts := strings.Split(n.Value, ":")
		if len(parts) < 3 {
			return
		}
		var keep []string
		for _, o := range strings.Split(parts[2], ",") {
			if o != "ro" {
				keep = append(keep, o)
			}
		}
		parts = parts[:2]
		if len(keep) > 0 {
			parts = append(parts, strings.Join(keep, ","))
		}
		target, newVal = n, strings.Join(parts, ":")
	case yaml.MappingNode:
		_, v := yamledit.OwnKey(n, "read_only")
		target, newVal = v, "false"
	}
	if target == nil || !pl.replaceScalar(m.src, target, "", newVal, false) {
		return
	}
	pl.changes = append(pl.changes, Change{Kind: "repair", Pos: yamledit.NodePos(m.src, target),
		Service: db.name, Key: "volumes", Before: target.Value, After: newVal,
		Reason: "Postgres must create its socket and lock file in " + db.socketDir})
	pl.findings.add("UDS107", yamledit.NodePos(m.src, m.node), db.name, "volumes",
		fmt.Sprintf("the socket directory %s was mounted read-only; Postgres cannot create its socket there (\"Read-only file system\"), so the mount is now read-write", db.socketDir))
}

// replaceScalar swaps the text of scalar n for prefix+v in its own quoting
// style (yamledit.Editor.ReplaceScalar). It reports false (with a finding)
// when the value cannot be located exactly.
func (pl *planner) replaceScalar(src *Source, n *yaml.Node, prefix, v string, inFlow bool) bool {
	return !pl.editFailed(pl.ed(src).ReplaceScalar(n, prefix+v, inFlow), "", "")
}

// migrateDB adds the socket volume to the database and its clients and
// rewrites each client value.
func (pl *planner) migrateDB(db *dbService, edges []*edge) {
	home := pl.p.imageHome(db.name)
	dbSrc, dbNode := home.src, home.node
	if db.existing == nil {
		for _, d := range pl.p.serviceDefs(db.name) {
			pl.dropTmpfs(db, d, d == home)
		}
	}
	if db.existing == nil {
		pl.addMount(dbSrc, dbNode, db.name, db.volume+":"+db.socketDir,
			"read-write: Postgres creates its socket in "+db.socketDir)
		if db.bind {
			kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(dbSrc)), db.name)
			pl.findings.add("UDS106", yamledit.NodePos(dbSrc, kn), db.name, "volumes",
				fmt.Sprintf("--bind-mount: the socket directory %s is the host folder %s: it must exist and be writable by the postgres user of the image (uid 999 in the official image; a root-owned folder makes Postgres fail with \"could not create lock file\"), and Docker Desktop on macOS cannot pass sockets through it; a named volume avoids both", db.socketDir, db.volume))
		}
	}
	if !db.bind {
		pl.ensureTopVolume(dbSrc, db.volume)
	}
	if db.renamedVolume {
		kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(dbSrc)), db.name)
		pl.findings.add("UDS112", yamledit.NodePos(dbSrc, kn), db.name, "volumes",
			fmt.Sprintf("the project already has a volume named %s-socket for something else: the socket volume is %s instead (mounting that volume would hand its files to every client); name it with --volume", db.name, db.volume))
	}
	if db.family == catalog.EntrypointBitnami && db.existing == nil {
		kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(dbSrc)), db.name)
		pl.findings.add("UDS109", yamledit.NodePos(dbSrc, kn), db.name, "volumes",
			"Bitnami images keep the socket in /tmp and run as uid 1001: the socket volume is mounted over /tmp (a new named volume copies /tmp's mode 1777, so uid 1001 can write it); anything else the server puts in /tmp is shared with the clients too")
	} else if db.server != nil && path.Clean(db.socketDir) == "/tmp" && db.existing == nil {
		kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(dbSrc)), db.name)
		pl.findings.add("UDS109", yamledit.NodePos(dbSrc, kn), db.name, "volumes",
			fmt.Sprintf("the %s image keeps its socket in /tmp (%s): the socket volume is mounted over /tmp (a new named volume copies /tmp's mode 1777); anything else the server puts in /tmp is shared with the clients too", db.server.Family, db.server.Sources[0].Cite()))
	}
	switch {
	case db.trustLocal && db.family == catalog.EntrypointOfficial && pl.opts.AuthLocal != "":
		pl.setAuthLocal(db, dbSrc, dbNode)
	case db.trustLocal && db.family == catalog.EntrypointOfficial:
		// The official entrypoint or a copy of it: POSTGRES_INITDB_ARGS
		// reaches initdb.
		kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(dbSrc)), db.name)
		pl.findings.add("UDS102", yamledit.NodePos(dbSrc, kn), db.name, "",
			"the official image trusts local socket connections: any container that mounts "+db.volume+" can log in as any database user, superuser included, without a password; set POSTGRES_INITDB_ARGS=--auth-local=scram-sha-256 (applies to a new data directory only) or add a pg_hba.conf local line")
	case db.trustLocal:
		kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(dbSrc)), db.name)
		pl.findings.add("UDS102", yamledit.NodePos(dbSrc, kn), db.name, "",
			fmt.Sprintf("the %s image trusts local socket connections (%s): any container that mounts %s can log in as any database user, superuser included, without a password; change the local line of pg_hba.conf in its data directory to scram-sha-256", db.server.Family, db.server.Server.Local, db.volume))
	}
	if db.family == familyUnknown && !poolerOf(db.svc.Image) {
		kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(dbSrc)), db.name)
		pl.findings.add("UDS113", yamledit.NodePos(dbSrc, kn), db.name, "",
			fmt.Sprintf("the tool does not know how the image %q authenticates socket connections: its pg_hba.conf local lines decide, not the host lines the clients used over TCP; peer fails across containers (a client runs as another user), trust lets any container that mounts %s in as any database user; check them before relying on the socket", db.svc.Image, db.volume))
	}
	pl.warnPlacement(db.name)
	byService := map[string][]*edge{}
	for _, e := range edges {
		byService[e.v.service] = append(byService[e.v.service], e)
	}
	mountPath := map[string]string{}
	for _, e := range edges {
		mp, ok := mountPath[e.v.service]
		if !ok {
			pl.warnPlacement(e.v.service)
			mp = pl.clientMount(db, e.v.service, pl.p.mountHomes(e.v.service, byService[e.v.service]))
			mountPath[e.v.service] = mp
		}
		pl.rewriteEdge(e, mp)
	}
}

func (pl *planner) servicesNode(src *Source) *yaml.Node {
	_, n := yamledit.OwnKey(src.Root, "services")
	return n
}

// clientMount makes sure client mounts the database's socket volume, in
// each of homes (see mountHomes), and returns the directory where it sees
// the socket.
func (pl *planner) clientMount(db *dbService, client string, homes []serviceDef) string {
	ms := pl.p.serviceMounts(client)
	taken := map[string]bool{}
	for _, m := range ms {
		if m.source == db.volume {
			return m.target
		}
		taken[m.target] = true
	}
	for _, t := range pl.p.model.Services[client].Tmpfs {
		d, _, _ := strings.Cut(t, ":")
		taken[path.Clean(d)] = true
	}
	// Mounts this run already gave the client (a client of two databases
	// needs two directories: one path cannot hold two volumes).
	for _, t := range pl.clients.clientPaths[client] {
		taken[t] = true
	}
	mp := path.Clean(pl.opts.MountPath)
	if taken[mp] {
		mp = mp + "-" + db.name
	}
	pl.clients.clientPaths[client] = append(pl.clients.clientPaths[client], mp)
	for _, h := range homes {
		pl.addMount(h.src, h.node, client, db.volume+":"+mp+":ro",
			"read-only is enough to connect to "+db.name+"'s socket")
		if !db.bind {
			pl.ensureTopVolume(h.src, db.volume)
		}
	}
	return mp
}

// addMount appends a short-syntax volumes: entry to a service. When the
// service's list comes only from a merged anchor, the anchor's list is
// extended if every service merging it gets the same entry; otherwise the
// service gets its own list (merge keys are shallow: a list of its own
// replaces the anchor's, so the anchor's items are copied).
func (pl *planner) addMount(src *Source, svc *yaml.Node, service, item, reason string) {
	at := yamledit.NodePos(src, svc)
	if kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(src)), service); kn != nil {
		at = yamledit.NodePos(src, kn)
	}
	pl.changes = append(pl.changes, Change{Kind: "mount", Pos: at, Service: service, Key: "volumes", After: item, Reason: reason})
	kn, seq := yamledit.OwnKey(svc, "volumes")
	if kn == nil {
		for _, pk := range pl.compose.newKeys {
			if pk.svc == svc {
				if !contains(pk.items, item) {
					pk.items = append(pk.items, item)
				}
				return
			}
		}
		var base []string
		if mk, mseq := yamledit.MapGet(svc, "volumes"); mk != nil {
			items, ok := yamledit.ScalarItems(yamledit.Deref(mseq))
			if !ok {
				pl.findings.add("UDS111", yamledit.NodePos(src, svc), service, "volumes", "volumes: comes from a merged anchor in long syntax; add "+item+" to "+service+" by hand")
				return
			}
			base = items
		}
		pl.compose.newKeys = append(pl.compose.newKeys, &pendingKey{src: src, svc: svc, items: append(base, item)})
		return
	}
	seq = yamledit.Deref(seq)
	if seq.Kind != yaml.SequenceNode {
		pl.findings.add("UDS111", yamledit.NodePos(src, kn), service, "volumes", "volumes: is not a list; add "+item+" by hand")
		return
	}
	if pl.compose.appended[seq] == nil {
		pl.compose.appended[seq] = map[string]bool{}
	}
	if pl.compose.appended[seq][item] {
		return
	}
	pl.compose.appended[seq][item] = true
	if len(seq.Content) == 0 && seq.Style&yaml.FlowStyle == 0 {
		pl.insertAfterLine(src, kn.Line, strings.Repeat(" ", kn.Column-1+yamledit.DetectLayout(src).SeqIndent)+"- "+item+"\n")
		return
	}
	pl.appendItem(src, seq, item)
}

// factoryArgRE matches junixsocket's factory class followed by an
// interpolation reference: in compose YAML "$FactoryArg" is a variable
// (empty), which leaves pgjdbc with AFUNIXSocketFactory and no usable
// constructor.
var factoryArgRE = regexp.MustCompile(`(AFUNIXSocketFactory)\$(\{(FactoryArg|URIScheme|SystemProperty)\}|(FactoryArg|URIScheme|SystemProperty))`)

// fixFactoryArg escapes a single-$ inner class name as $$.
func fixFactoryArg(raw string) string {
	return factoryArgRE.ReplaceAllStringFunc(raw, func(m string) string {
		i := strings.Index(m, "$")
		return m[:i] + "$$" + strings.Trim(m[i+1:], "{}")
	})
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

// readFile reads a file that is not a compose file (see Options.ReadFile).
func (pl *planner) readFile(p string) ([]byte, error) {
	if err := pl.p.escapes(p); err != nil {
		pl.refuse(p, err)
		return nil, err
	}
	for _, f := range pl.other.extra {
		if f.Path == p {
			return f.After, nil
		}
	}
	if pl.opts.ReadFile != nil {
		return pl.opts.ReadFile(p)
	}
	return readRegular(p)
}

// putFile records new content for a file that is not a compose file; p is
// the path as reports and -w use it (relative to the working directory,
// like the compose file paths).
func (pl *planner) putFile(p string, before, after []byte) {
	for i, f := range pl.other.extra {
		if f.Path == p {
			pl.other.extra[i].After, pl.other.extra[i].Changed = after, !bytes.Equal(f.Before, after)
			return
		}
	}
	pl.other.extra = append(pl.other.extra, FileResult{Path: p, Before: before, After: after, Changed: !bytes.Equal(before, after)})
}

// dropTmpfs removes a tmpfs on the database's socket directory (common with
// read_only: true) from one of its mappings: a tmpfs belongs to one
// container, so clients could never see the socket. The socket volume
// takes its place; in the mapping that defines the image (home), it is the
// database's socket mount.
func (pl *planner) dropTmpfs(db *dbService, d serviceDef, home bool) {
	src, node := d.src, d.node
	_, ms := pl.p.mounts(src, node)
	dir := path.Clean(db.socketDir)
	found := false
	_, seq := yamledit.OwnKey(node, "volumes")
	seq = yamledit.Deref(seq)
	for i, m := range ms {
		if m.source == "" && m.target == dir && yamledit.Deref(m.node).Kind == yaml.MappingNode && seq != nil {
			// The tmpfs entry becomes the socket volume, in place.
			if pl.replaceItem(src, seq, yamledit.Deref(m.node), db.volume+":"+db.socketDir) {
				if home {
					db.existing = &ms[i]
				}
				found = true
			}
		}
	}
	if kn, v := yamledit.OwnKey(node, "tmpfs"); kn != nil {
		v = yamledit.Deref(v)
		isDir := func(s string) bool { d, _, _ := strings.Cut(s, ":"); return path.Clean(d) == dir }
		switch {
		case v.Kind == yaml.ScalarNode && isDir(v.Value):
			pl.deleteLines(src, kn.Line, src.BlockEnd(kn.Line, kn.Column, true))
			found = true
		case v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0:
			for _, it := range v.Content {
				if it.Kind == yaml.ScalarNode && isDir(it.Value) {
					if len(v.Content) == 1 {
						pl.deleteLines(src, kn.Line, src.BlockEnd(kn.Line, kn.Column, true))
					} else {
						pl.deleteLines(src, it.Line, src.BlockEnd(it.Line, v.Column, false))
					}
					found = true
				}
			}
		}
	}
	if found {
		kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(src)), db.name)
		pl.findings.add("UDS108", yamledit.NodePos(src, kn), db.name, "tmpfs",
			fmt.Sprintf("the tmpfs on %s is private to the %s container, so clients could never see the socket: replaced by the socket volume", db.socketDir, db.name))
		pl.changes = append(pl.changes, Change{Kind: "repair", Pos: Pos{File: src.Path}, Service: db.name, Key: "tmpfs", Before: db.socketDir, After: "socket volume", Reason: "a tmpfs is not shared between containers"})
	}
}

// pendingKey is a volumes: key to add to a service that has none of its
// own, with every item the migration needs there (a client of two
// databases, or of a database and an app server, gets one key).
type pendingKey struct {
	src   *Source
	svc   *yaml.Node
	items []string
}

// setAuthLocal makes the official image's initdb write a password method
// for local connections (POSTGRES_INITDB_ARGS=--auth-local=METHOD), so the
// socket volume does not hand out trust. initdb runs only on an empty data
// directory, which the finding says.
func (pl *planner) setAuthLocal(db *dbService, src *Source, node *yaml.Node) {
	arg := "--auth-local=" + pl.opts.AuthLocal
	kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(src)), db.name)
	for _, v := range pl.p.serviceEnv(db.name) {
		if v.key == "POSTGRES_INITDB_ARGS" {
			m, err := interp.Mask(v.raw)
			if err != nil || !pl.setValue(v, m, strings.TrimSpace(m.Value+" "+arg)) {
				return
			}
			goto done
		}
	}
	if !pl.addServiceEnv(serviceDef{src, node}, db.name, "POSTGRES_INITDB_ARGS", arg) {
		return
	}
done:
	pl.changes = append(pl.changes, Change{Kind: "value", Pos: yamledit.NodePos(src, kn), Service: db.name, Key: "POSTGRES_INITDB_ARGS", After: arg,
		Reason: "local (socket) connections need a password instead of the image's default trust"})
	pl.findings.add("UDS125", yamledit.NodePos(src, kn), db.name, "POSTGRES_INITDB_ARGS",
		"POSTGRES_INITDB_ARGS="+arg+" takes effect only when the data directory is created: an existing cluster keeps trust for local connections until pg_hba.conf is changed (local all all "+pl.opts.AuthLocal+") and the server reloads")
}

// warnPlacement reports a service that Swarm may schedule on several
// nodes: a Unix socket in a local volume reaches processes on one host only.
func (pl *planner) warnPlacement(service string) {
	d := pl.p.model.Services[service].Deploy
	if d == nil || (d.Mode != "global" && len(d.Placement.Constraints) == 0 && len(d.Placement.Preferences) == 0) {
		return
	}
	src, _ := pl.p.serviceNode(service)
	kn, _ := yamledit.OwnKey(yamledit.Deref(pl.servicesNode(src)), service)
	pl.findings.add("UDS126", yamledit.NodePos(src, kn), service, "deploy",
		service+" has Swarm placement (deploy.mode global or placement constraints): a Unix socket in a local volume reaches only containers on the same node, so keep the database and its clients on one node or stay on TCP")
}

// replaceItem swaps one item of a volumes list for a short-syntax entry
// (yamledit.Editor.ReplaceItem); false when it cannot.
func (pl *planner) replaceItem(src *Source, seq, item *yaml.Node, text string) bool {
	return pl.ed(src).ReplaceItem(seq, item, text) == nil
}
