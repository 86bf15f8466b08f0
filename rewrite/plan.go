package rewrite

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/internal/interp"
)

// planner decides the edits and findings for one project. Its steps (see
// steps) write into the shared plan (edits, findings, changes, the
// bookkeeping of compose and other file edits); the state only one kind
// of step needs is grouped by that owner.
type planner struct {
	p        *project
	opts     Options
	dbs      []*dbService
	edits    []edit
	findings findingList
	refused  map[string]bool // paths reported with UDS172 (refuse)
	changes  []Change

	compose composeEdits // the compose-file editor's bookkeeping
	other   otherFiles   // edits of files other than the compose files
	clients clientState  // client values: what the client steps decided per service
	configs configState  // connection values in application configuration files
	revert  revertState  // revert only
}

// composeEdits is what the compose-file editor remembers between edits.
type composeEdits struct {
	edited   map[*yaml.Node]bool            // scalars already rewritten (anchors are shared)
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
	// mounting: the services getting the socket mount in the current
	// step (a database's clients), for lists shared through anchors.
	mounting map[string]bool
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
	removed      map[*yaml.Node]bool  // items removed (a shared list is reached once per service)
	removedItems map[*yaml.Node]int   // items removed per volumes: list
	dropTop      map[*Source][]string // top-level volumes to remove
}

func newPlanner(p *project, opts Options) *planner {
	return &planner{p: p, opts: opts,
		compose: composeEdits{edited: map[*yaml.Node]bool{}, appended: map[*yaml.Node]map[string]bool{}, topAdded: map[topVolume]bool{}, reserved: map[string]bool{}, newTop: map[*Source][]string{}},
		clients: clientState{clientPaths: map[string][]string{}, sysprop: map[string]string{}, sslClients: map[string]bool{}, javaWarn: map[string]bool{},
			keepPGSSLMode: map[string]bool{}, pghostOnSocket: map[string]bool{}, migratedPos: map[string]bool{}},
		configs: configState{cfgSocket: map[string]string{}, cfgDone: map[string]bool{}}}
}

func (pl *planner) add(e edit) {
	pl.edits = append(pl.edits, e)
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
		pl.findings.add("UDS132", nodePos(s, kn), db.name, "command", msg)
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
			pl.findings.add("UDS106", nodePos(m.src, m.node), db.name, "volumes",
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
	n := deref(m.node)
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
		_, v := ownKey(n, "read_only")
		target, newVal = v, "false"
	}
	if target == nil || !pl.replaceScalar(m.src, target, "", newVal, false) {
		return
	}
	pl.changes = append(pl.changes, Change{Kind: "repair", Pos: nodePos(m.src, target),
		Service: db.name, Key: "volumes", Before: target.Value, After: newVal,
		Reason: "Postgres must create its socket and lock file in " + db.socketDir})
	pl.findings.add("UDS107", nodePos(m.src, m.node), db.name, "volumes",
		fmt.Sprintf("the socket directory %s was mounted read-only; Postgres cannot create its socket there (\"Read-only file system\"), so the mount is now read-write", db.socketDir))
}

// replaceScalar swaps the text of scalar n for prefix+v in its own quoting
// style. It reports false (with a finding) when the value cannot be located
// exactly.
func (pl *planner) replaceScalar(src *Source, n *yaml.Node, prefix, v string, inFlow bool) bool {
	if pl.compose.edited[n] {
		return true
	}
	sp, err := src.scalarSpan(n, inFlow)
	if err != nil {
		pl.findings.add("UDS111", nodePos(src, n), "", "", err.Error())
		return false
	}
	pl.compose.edited[n] = true
	pl.add(edit{src: src, start: sp.Start, end: sp.End, text: renderScalar(prefix+v, n.Style, inFlow)})
	return true
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
			kn, _ := ownKey(deref(pl.servicesNode(dbSrc)), db.name)
			pl.findings.add("UDS106", nodePos(dbSrc, kn), db.name, "volumes",
				fmt.Sprintf("--bind-mount: the socket directory %s is the host folder %s: it must exist and be writable by the postgres user of the image (uid 999 in the official image; a root-owned folder makes Postgres fail with \"could not create lock file\"), and Docker Desktop on macOS cannot pass sockets through it; a named volume avoids both", db.socketDir, db.volume))
		}
	}
	if !db.bind {
		pl.ensureTopVolume(dbSrc, db.volume)
	}
	if db.renamedVolume {
		kn, _ := ownKey(deref(pl.servicesNode(dbSrc)), db.name)
		pl.findings.add("UDS112", nodePos(dbSrc, kn), db.name, "volumes",
			fmt.Sprintf("the project already has a volume named %s-socket for something else: the socket volume is %s instead (mounting that volume would hand its files to every client); name it with --volume", db.name, db.volume))
	}
	if db.family == familyBitnami.Name && db.existing == nil {
		kn, _ := ownKey(deref(pl.servicesNode(dbSrc)), db.name)
		pl.findings.add("UDS109", nodePos(dbSrc, kn), db.name, "volumes",
			"Bitnami images keep the socket in /tmp and run as uid 1001: the socket volume is mounted over /tmp (a new named volume copies /tmp's mode 1777, so uid 1001 can write it); anything else the server puts in /tmp is shared with the clients too")
	}
	if db.trustLocal && db.family == familyOfficial.Name && pl.opts.AuthLocal != "" {
		pl.setAuthLocal(db, dbSrc, dbNode)
	} else if db.trustLocal && db.family == familyOfficial.Name {
		kn, _ := ownKey(deref(pl.servicesNode(dbSrc)), db.name)
		pl.findings.add("UDS102", nodePos(dbSrc, kn), db.name, "",
			"the official image trusts local socket connections: any container that mounts "+db.volume+" can log in as any database user, superuser included, without a password; set POSTGRES_INITDB_ARGS=--auth-local=scram-sha-256 (applies to a new data directory only) or add a pg_hba.conf local line")
	}
	if db.family == familyUnknown && !poolerOf(db.svc.Image) {
		kn, _ := ownKey(deref(pl.servicesNode(dbSrc)), db.name)
		pl.findings.add("UDS113", nodePos(dbSrc, kn), db.name, "",
			fmt.Sprintf("the tool does not know how the image %q authenticates socket connections: its pg_hba.conf local lines decide, not the host lines the clients used over TCP; peer fails across containers (a client runs as another user), trust lets any container that mounts %s in as any database user; check them before relying on the socket", db.svc.Image, db.volume))
	}
	pl.warnPlacement(db.name)
	byService := map[string][]*edge{}
	for _, e := range edges {
		byService[e.v.service] = append(byService[e.v.service], e)
	}
	pl.clients.mounting = map[string]bool{}
	for s := range byService {
		pl.clients.mounting[s] = true
	}
	defer func() { pl.clients.mounting = nil }()
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
	_, n := ownKey(src.Root, "services")
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

// addMount appends a short-syntax volumes: entry to a service. A list the
// service shares with others through an anchor (a merged <<, or
// volumes: *alias) is edited where it is written only when every service
// using it gets the entry in this step; otherwise the service gets a list
// of its own with the anchor's items copied (merge keys are shallow: its
// own list replaces the anchor's), and a list written in this service
// that others merge is first copied into theirs (sharedvolumes.go).
func (pl *planner) addMount(src *Source, svc *yaml.Node, service, item, reason string) {
	at := nodePos(src, svc)
	if kn, _ := ownKey(deref(pl.servicesNode(src)), service); kn != nil {
		at = nodePos(src, kn)
	}
	pl.changes = append(pl.changes, Change{Kind: "mount", Pos: at, Service: service, Key: "volumes", After: item, Reason: reason})
	for _, pk := range pl.compose.newKeys {
		if pk.svc == svc && pk.src == src {
			if !contains(pk.items, item) {
				pk.items = append(pk.items, item)
			}
			return
		}
	}
	kn, own := ownKey(svc, "volumes")
	var shared *yaml.Node // a list written elsewhere: merged, or aliased
	switch {
	case kn == nil:
		if _, mseq := mapGet(svc, "volumes"); mseq != nil {
			shared = deref(mseq)
		}
	case own.Kind == yaml.AliasNode:
		shared = deref(own)
	}
	if shared != nil && !pl.mountedByAll(src, shared, service) {
		pl.ownVolumes(src, svc, service, kn, own, shared, item)
		return
	}
	if kn == nil && shared == nil {
		pl.compose.newKeys = append(pl.compose.newKeys, &pendingKey{src: src, svc: svc, items: []string{item}})
		return
	}
	seq := shared
	if seq == nil {
		seq = deref(own)
		if seq.Kind == yaml.SequenceNode && !pl.mountedByAll(src, seq, service) {
			// Others merge this service's own list: they keep it as it
			// was, in lists of their own.
			pl.shieldMergers(src, seq, service)
		}
	}
	if seq.Kind != yaml.SequenceNode {
		pl.findings.add("UDS111", nodePos(src, svc), service, "volumes", "volumes: is not a list; add "+item+" by hand")
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
		pl.insertAfterLine(src, kn.Line, strings.Repeat(" ", kn.Column-1+detectLayout(src).seqIndent)+"- "+item+"\n")
		return
	}
	pl.appendItem(src, seq, item)
}

// scalarItems returns the items of a list as YAML text, when all are
// short-syntax scalars.
func scalarItems(seq *yaml.Node) ([]string, bool) {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil, false
	}
	var out []string
	for _, it := range seq.Content {
		it = deref(it)
		if it.Kind != yaml.ScalarNode {
			return nil, false
		}
		out = append(out, renderScalar(it.Value, it.Style, false))
	}
	return out, true
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
	_, seq := ownKey(node, "volumes")
	seq = deref(seq)
	for i, m := range ms {
		if m.source == "" && m.target == dir && deref(m.node).Kind == yaml.MappingNode && seq != nil {
			// The tmpfs entry becomes the socket volume, in place.
			if pl.replaceItem(src, seq, deref(m.node), db.volume+":"+db.socketDir) {
				if home {
					db.existing = &ms[i]
				}
				found = true
			}
		}
	}
	if kn, v := ownKey(node, "tmpfs"); kn != nil {
		v = deref(v)
		isDir := func(s string) bool { d, _, _ := strings.Cut(s, ":"); return path.Clean(d) == dir }
		switch {
		case v.Kind == yaml.ScalarNode && isDir(v.Value):
			pl.deleteLines(src, kn.Line, src.blockEnd(kn.Line, kn.Column, true))
			found = true
		case v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0:
			for _, it := range v.Content {
				if it.Kind == yaml.ScalarNode && isDir(it.Value) {
					if len(v.Content) == 1 {
						pl.deleteLines(src, kn.Line, src.blockEnd(kn.Line, kn.Column, true))
					} else {
						pl.deleteLines(src, it.Line, src.blockEnd(it.Line, v.Column, false))
					}
					found = true
				}
			}
		}
	}
	if found {
		kn, _ := ownKey(deref(pl.servicesNode(src)), db.name)
		pl.findings.add("UDS108", nodePos(src, kn), db.name, "tmpfs",
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
	// key and alias: the service's own volumes: *x, replaced by items.
	key, alias *yaml.Node
}

// setAuthLocal makes the official image's initdb write a password method
// for local connections (POSTGRES_INITDB_ARGS=--auth-local=METHOD), so the
// socket volume does not hand out trust. initdb runs only on an empty data
// directory, which the finding says.
func (pl *planner) setAuthLocal(db *dbService, src *Source, node *yaml.Node) {
	arg := "--auth-local=" + pl.opts.AuthLocal
	kn, _ := ownKey(deref(pl.servicesNode(src)), db.name)
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
	pl.changes = append(pl.changes, Change{Kind: "value", Pos: nodePos(src, kn), Service: db.name, Key: "POSTGRES_INITDB_ARGS", After: arg,
		Reason: "local (socket) connections need a password instead of the image's default trust"})
	pl.findings.add("UDS125", nodePos(src, kn), db.name, "POSTGRES_INITDB_ARGS",
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
	kn, _ := ownKey(deref(pl.servicesNode(src)), service)
	pl.findings.add("UDS126", nodePos(src, kn), service, "deploy",
		service+" has Swarm placement (deploy.mode global or placement constraints): a Unix socket in a local volume reaches only containers on the same node, so keep the database and its clients on one node or stay on TCP")
}

// replaceItem swaps one item of a volumes list for a short-syntax entry:
// a flow mapping {...} in place, a block item line for line.
func (pl *planner) replaceItem(src *Source, seq, item *yaml.Node, text string) bool {
	start := src.offset(item.Line, item.Column)
	if item.Style&yaml.FlowStyle != 0 {
		end := flowClose(src.Data, start)
		if end < 0 {
			return false
		}
		pl.add(edit{src: src, start: start, end: end + 1, text: text})
		return true
	}
	if seq.Style&yaml.FlowStyle != 0 {
		return false
	}
	// Block item "- type: tmpfs\n  target: ...": from its dash to its end.
	first := item.Line
	last := src.blockEnd(first, seq.Column, false)
	pl.add(edit{src: src, start: src.lineStart[first-1], end: src.lineEndOffset(last),
		text: src.withEOL(strings.Repeat(" ", seq.Column-1) + "- " + text + "\n")})
	return true
}
