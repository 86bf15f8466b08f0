package rewrite

import (
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/pgserver"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// migration is the step that moves each database and its clients to the
// socket (migrateStep): the socket volume on the database, each client
// value rewritten, and the client's mount. It owns what it decides per
// client on the way; out is its result.
type migration struct {
	*pass
	plans       dbPlans             // the databases step's result, only read
	clientPaths map[string][]string // socket mount paths given to each client in this run
	sysprop     map[string]string   // --jdbc-factory sysprop: the socket file per service
	javaWarn    map[string]bool     // services already told about junixsocket (UDS101)
	cfgDone     map[string]bool     // configuration file values edited ("path:offset")
	own         dbPlans             // this step's copies of the plans (plan)
	out         clientResult
}

// clientResult is what the migration did to the clients, for PGSSLMODE.
type clientResult struct {
	sslClients map[string]bool // services with a libpq value rewritten to the socket
	// pghostOnSocket: services whose PGSSLMODE stays (Topology.KeepPGSSLMode)
	// and whose PGHOST moved to the socket.
	pghostOnSocket map[string]bool
	migratedPos    map[string]bool // Pos.String() of every environment value rewritten to socket form
}

func newMigration(ps *pass, plans dbPlans) *migration {
	return &migration{pass: ps, plans: plans, clientPaths: map[string][]string{}, sysprop: map[string]string{},
		javaWarn: map[string]bool{}, cfgDone: map[string]bool{}, own: dbPlans{},
		out: clientResult{sslClients: map[string]bool{}, pghostOnSocket: map[string]bool{}, migratedPos: map[string]bool{}}}
}

// plan is this step's copy of db's plan: the databases step's result is
// only read, and replacing a tmpfs by the socket volume gives the copy its
// existing mount (dropTmpfs).
func (mg *migration) plan(db *analyze.DB) *dbPlan {
	if mg.own[db] == nil {
		c := dbPlan{}
		if dp := mg.plans[db]; dp != nil {
			c = *dp
		}
		mg.own[db] = &c
	}
	return mg.own[db]
}

// dbPlan is what planning decides about one database: its socket volume
// and whether a mount already carries it.
type dbPlan struct {
	volume   string
	bind     bool
	existing *compose.Mount // the mount already at the socket directory, if any
	// renamedVolume: <name>-socket was taken, volume is a fresh name.
	renamedVolume bool
}

// dbPlans are the plans of a run's databases.
type dbPlans map[*analyze.DB]*dbPlan

// of is db's plan (prepareDB fills it).
func (m dbPlans) of(db *analyze.DB) *dbPlan {
	if m[db] == nil {
		m[db] = &dbPlan{}
	}
	return m[db]
}

// volume is the socket volume planned for db (analyze.NewResult).
func (m dbPlans) volume(db *analyze.DB) string {
	if dp := m[db]; dp != nil {
		return dp.volume
	}
	return ""
}

// prepareDBs is the databases step: each database's plan (dbPlans).
func prepareDBs(ps *pass) (any, error) {
	plans := dbPlans{}
	for _, db := range ps.top.DBs {
		prepareDB(ps, plans.of(db), db)
	}
	return plans, nil
}

// prepareDB picks the socket volume (the one already mounted at the socket
// directory, the flags', or a fresh name) and repairs what would stop the
// server from creating its socket.
func prepareDB(pl *pass, dp *dbPlan, db *analyze.DB) {
	dp.volume = pl.opts.Volume
	if pl.opts.BindMount != "" {
		dp.volume, dp.bind = pl.opts.BindMount, true
	}
	for _, ent := range pl.p.ServiceEnv(db.Name) {
		if msg := pgserver.ClientVarProblem(db.Name, ent.Key); msg != "" {
			pl.rep.Add("UDS133", ent.Pos, db.Name, ent.Key, msg)
		}
	}
	if msg := analyze.InitSocketProblem(db); msg != "" {
		s, kn := pl.p.SettingsNode(db.Name)
		pl.rep.Add("UDS132", yamledit.NodePos(s, kn), db.Name, "command", msg)
	}
	for i := range db.SocketMounts {
		m := db.SocketMounts[i]
		dp.existing, dp.volume, dp.bind = &db.SocketMounts[i], m.Source, m.Bind
		if m.ReadOnly {
			makeWritable(pl, db, m)
		}
		if m.Bind {
			pl.rep.Add("UDS106", yamledit.NodePos(m.Src, m.Node), db.Name, "volumes",
				fmt.Sprintf("the socket directory %s is a host bind mount (%s): it is root-owned, so Postgres may fail to create its lock file (rootless Docker, user:), and Docker Desktop on macOS cannot pass sockets through it; a named volume avoids both", m.Target, m.Source))
		}
	}
	if dp.volume == "" {
		dp.volume, dp.renamedVolume = pl.ed.SocketVolumeName(db.Name+"-socket", socketTarget(pl.opts.MountPath))
	}
}

// makeWritable drops :ro / read_only from the database's socket mount:
// Postgres must create its socket and lock file there.
func makeWritable(pl *pass, db *analyze.DB, m compose.Mount) {
	n := yamledit.Deref(m.Node)
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
	// In a flow mapping ({..., read_only: true}) or a flow list the value
	// ends at "," or "}", not at the line's end.
	inFlow := n.Style&yaml.FlowStyle != 0 || m.InFlow
	if target == nil || !pl.ed.ReplaceScalar(m.Src, target, newVal, inFlow) {
		return
	}
	pl.rep.Change(Change{Kind: "repair", Pos: yamledit.NodePos(m.Src, target),
		Service: db.Name, Key: "volumes", Before: target.Value, After: newVal,
		Reason: "Postgres must create its socket and lock file in " + m.Target})
	pl.rep.Add("UDS107", yamledit.NodePos(m.Src, m.Node), db.Name, "volumes",
		fmt.Sprintf("the socket directory %s was mounted read-only; Postgres cannot create its socket there (\"Read-only file system\"), so the mount is now read-write", m.Target))
}

// migrateDB adds the socket volume to the database and its clients and
// rewrites each client value.
func (mg *migration) migrateDB(db *analyze.DB, edges []*analyze.Edge) {
	home := mg.p.ImageHome(db.Name)
	dbSrc, dbNode := home.Src, home.Node
	if mg.plan(db).existing == nil {
		for _, d := range mg.p.ServiceDefs(db.Name) {
			mg.dropTmpfs(db, d, d == home)
		}
	}
	if mg.plan(db).existing == nil {
		mg.ed.AddMount(dbSrc, dbNode, db.Name, mg.plan(db).volume+":"+db.SocketDir,
			"read-write: Postgres creates its socket in "+db.SocketDir)
		if mg.plan(db).bind {
			kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(dbSrc)), db.Name)
			mg.rep.Add("UDS106", yamledit.NodePos(dbSrc, kn), db.Name, "volumes",
				fmt.Sprintf("--bind-mount: the socket directory %s is the host folder %s: it must exist and be writable by the postgres user of the image (uid 999 in the official image; a root-owned folder makes Postgres fail with \"could not create lock file\"), and Docker Desktop on macOS cannot pass sockets through it; a named volume avoids both", db.SocketDir, mg.plan(db).volume))
		}
	}
	if !mg.plan(db).bind {
		mg.ed.EnsureTopVolume(dbSrc, mg.plan(db).volume)
	}
	if mg.plan(db).renamedVolume {
		kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(dbSrc)), db.Name)
		mg.rep.Add("UDS112", yamledit.NodePos(dbSrc, kn), db.Name, "volumes",
			fmt.Sprintf("the project already has a volume named %s-socket for something else: the socket volume is %s instead (mounting that volume would hand its files to every client); name it with --volume", db.Name, mg.plan(db).volume))
	}
	if db.Family == catalog.EntrypointBitnami && mg.plan(db).existing == nil {
		kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(dbSrc)), db.Name)
		mg.rep.Add("UDS109", yamledit.NodePos(dbSrc, kn), db.Name, "volumes",
			"Bitnami images keep the socket in /tmp and run as uid 1001: the socket volume is mounted over /tmp (a new named volume copies /tmp's mode 1777, so uid 1001 can write it); anything else the server puts in /tmp is shared with the clients too")
	} else if db.Server != nil && path.Clean(db.SocketDir) == "/tmp" && mg.plan(db).existing == nil {
		kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(dbSrc)), db.Name)
		mg.rep.Add("UDS109", yamledit.NodePos(dbSrc, kn), db.Name, "volumes",
			fmt.Sprintf("the %s image keeps its socket in /tmp (%s): the socket volume is mounted over /tmp (a new named volume copies /tmp's mode 1777); anything else the server puts in /tmp is shared with the clients too", db.Server.Family, db.Server.Sources[0].Cite()))
	}
	switch {
	case db.TrustLocal && db.Family == catalog.EntrypointOfficial && mg.opts.AuthLocal != "" && !mg.authLocalRefused(db, dbSrc):
		mg.setAuthLocal(db, dbSrc, dbNode)
		mg.warnPasswordless(db, edges)
	case db.TrustLocal && db.Family == catalog.EntrypointOfficial:
		// The official entrypoint or a copy of it: POSTGRES_INITDB_ARGS
		// reaches initdb.
		kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(dbSrc)), db.Name)
		mg.rep.Add("UDS102", yamledit.NodePos(dbSrc, kn), db.Name, "",
			"the official image trusts local socket connections: any container that mounts "+mg.plan(db).volume+" can log in as any database user, superuser included, without a password; set POSTGRES_INITDB_ARGS=--auth-local=scram-sha-256 (applies to a new data directory only) or add a pg_hba.conf local line")
	case db.TrustLocal:
		kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(dbSrc)), db.Name)
		mg.rep.Add("UDS102", yamledit.NodePos(dbSrc, kn), db.Name, "",
			fmt.Sprintf("the %s image trusts local socket connections (%s): any container that mounts %s can log in as any database user, superuser included, without a password; change the local line of pg_hba.conf in its data directory to scram-sha-256", db.Server.Family, db.Server.Server.Local, mg.plan(db).volume))
	}
	if db.Family == pgserver.Unknown && !pgserver.IsPooler(db.Config.Image) {
		kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(dbSrc)), db.Name)
		mg.rep.Add("UDS113", yamledit.NodePos(dbSrc, kn), db.Name, "",
			fmt.Sprintf("the tool does not know how the image %q authenticates socket connections: its pg_hba.conf local lines decide, not the host lines the clients used over TCP; peer fails across containers (a client runs as another user), trust lets any container that mounts %s in as any database user; check them before relying on the socket", db.Config.Image, mg.plan(db).volume))
	}
	mg.warnPlacement(db.Name)
	byService := map[string][]*analyze.Edge{}
	for _, e := range edges {
		byService[e.Var.Service] = append(byService[e.Var.Service], e)
	}
	mounting := map[string]bool{}
	for s := range byService {
		mounting[s] = true
	}
	for _, sh := range mg.top.Shares {
		if sh.DB == db {
			mounting[sh.Service] = true
		}
	}
	defer mg.ed.Mounting(mounting)()
	mountPath := map[string]string{}
	mounted := map[string]bool{}
	for _, e := range edges {
		service := e.Var.Service
		mp, ok := mountPath[service]
		if !ok {
			mg.warnPlacement(service)
			mp = mg.clientMountPath(db, service)
			mountPath[service] = mp
		}
		// The mount comes with the first value written: a service none of
		// whose values could be edited gets none (half a migration).
		mg.rewriteEdge(e, mp, func() {
			if !mounted[service] {
				mounted[service] = true
				mg.addClientMount(db, service, mp, mountHomes(mg.p, service, byService[service]))
			}
		})
	}
	for _, sh := range mg.top.Shares {
		if h := mg.p.ImageHome(sh.Service); sh.DB == db && h.Src != nil {
			mg.warnPlacement(sh.Service)
			mg.clientMount(db, sh.Service, []compose.ServiceDef{h})
		}
	}
}

func (mg *migration) servicesNode(src *Source) *yaml.Node {
	_, n := yamledit.OwnKey(src.Root, "services")
	return n
}

// clientMount makes sure client mounts the database's socket volume, in
// each of homes (see mountHomes), and returns the directory where it sees
// the socket.
func (mg *migration) clientMount(db *analyze.DB, client string, homes []compose.ServiceDef) string {
	mp := mg.clientMountPath(db, client)
	mg.addClientMount(db, client, mp, homes)
	return mp
}

// clientMountPath returns the directory where client sees the database's
// socket: where it mounts the socket volume already, else the mount path
// (with -DB when another mount of the client holds it), which it reserves
// for this database.
func (mg *migration) clientMountPath(db *analyze.DB, client string) string {
	ms := mg.p.ServiceMounts(client)
	taken := map[string]bool{}
	for _, m := range ms {
		if m.Source == mg.plan(db).volume {
			return m.Target
		}
		taken[pgserver.Dir(m.Target)] = true
	}
	for _, t := range mg.p.Model.Services[client].Tmpfs {
		d, _, _ := strings.Cut(t, ":")
		taken[pgserver.Dir(d)] = true
	}
	// Mounts this run already gave the client (a client of two databases
	// needs two directories: one path cannot hold two volumes).
	for _, t := range mg.clientPaths[client] {
		taken[pgserver.Dir(t)] = true
	}
	mp := path.Clean(mg.opts.MountPath)
	if taken[pgserver.Dir(mp)] {
		mp = mp + "-" + db.Name
	}
	mg.clientPaths[client] = append(mg.clientPaths[client], mp)
	return mp
}

// addClientMount mounts the database's socket volume read-only at mp in
// each of client's homes (see mountHomes), unless client mounts it there
// already.
func (mg *migration) addClientMount(db *analyze.DB, client, mp string, homes []compose.ServiceDef) {
	for _, m := range mg.p.ServiceMounts(client) {
		if m.Source == mg.plan(db).volume {
			return
		}
	}
	for _, h := range homes {
		mg.ed.AddMount(h.Src, h.Node, client, mg.plan(db).volume+":"+mp+":ro",
			"read-only is enough to connect to "+db.Name+"'s socket")
		if !mg.plan(db).bind {
			mg.ed.EnsureTopVolume(h.Src, mg.plan(db).volume)
		}
	}
}

// dropTmpfs removes a tmpfs on the database's socket directory (common with
// read_only: true) from one of its mappings: a tmpfs belongs to one
// container, so clients could never see the socket. The socket volume
// takes its place; in the mapping that defines the image (home), it is the
// database's socket mount.
func (mg *migration) dropTmpfs(db *analyze.DB, d compose.ServiceDef, home bool) {
	src, node := d.Src, d.Node
	_, ms := mg.p.Mounts(src, node)
	dir := path.Clean(db.SocketDir)
	found := false
	var at Pos     // the tmpfs's line, for the plan's change
	written := dir // the tmpfs's path as written (/run/postgresql for /var/run/postgresql)
	_, seq := yamledit.OwnKey(node, "volumes")
	seq = yamledit.Deref(seq)
	for i, m := range ms {
		if m.Source == "" && pgserver.Dir(m.Target) == pgserver.Dir(dir) && yamledit.Deref(m.Node).Kind == yaml.MappingNode && seq != nil {
			written = m.Target
			at = yamledit.NodePos(src, yamledit.Deref(m.Node))
			// The tmpfs entry becomes the socket volume, in place.
			if mg.ed.YAML(src).ReplaceItem(seq, yamledit.Deref(m.Node), mg.plan(db).volume+":"+db.SocketDir) == nil {
				if home {
					mg.plan(db).existing = &ms[i]
				}
				found = true
			}
		}
	}
	if kn, v := yamledit.OwnKey(node, "tmpfs"); kn != nil {
		v = yamledit.Deref(v)
		isDir := func(s string) bool {
			d, _, _ := strings.Cut(s, ":")
			if pgserver.Dir(d) != pgserver.Dir(dir) {
				return false
			}
			written = path.Clean(d)
			return true
		}
		at = yamledit.NodePos(src, kn)
		switch {
		case v.Kind == yaml.ScalarNode && isDir(v.Value):
			mg.ed.YAML(src).DeleteLines(kn.Line, src.BlockEnd(kn.Line, kn.Column, true))
			found = true
		case v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0:
			for _, it := range v.Content {
				if it.Kind == yaml.ScalarNode && isDir(it.Value) {
					at = yamledit.NodePos(src, it)
					if len(v.Content) == 1 {
						mg.ed.YAML(src).DeleteLines(kn.Line, src.BlockEnd(kn.Line, kn.Column, true))
					} else {
						mg.ed.YAML(src).DeleteLines(it.Line, src.BlockEnd(it.Line, v.Column, false))
					}
					found = true
				}
			}
		}
	}
	if found {
		kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(src)), db.Name)
		mg.rep.Add("UDS108", yamledit.NodePos(src, kn), db.Name, "tmpfs",
			fmt.Sprintf("the tmpfs on %s is private to the %s container, so clients could never see the socket: replaced by the socket volume", tmpfsWhere(written, db.SocketDir), db.Name))
		if at.Line == 0 {
			at = Pos{File: src.Path}
		}
		mg.rep.Change(Change{Kind: "repair", Pos: at, Service: db.Name, Key: "tmpfs", Before: db.SocketDir, After: "socket volume", Reason: "a tmpfs is not shared between containers"})
	}
}

// setAuthLocal makes the official image's initdb write a password method
// for local connections (POSTGRES_INITDB_ARGS=--auth-local=METHOD), so the
// socket volume does not hand out trust. initdb runs only on an empty data
// directory, which the finding says.
func (mg *migration) setAuthLocal(db *analyze.DB, src *Source, node *yaml.Node) {
	arg := "--auth-local=" + mg.opts.AuthLocal
	kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(src)), db.Name)
	for _, v := range mg.p.ServiceEnv(db.Name) {
		if v.Key == "POSTGRES_INITDB_ARGS" {
			m, err := interp.Mask(v.Raw)
			if err != nil || !mg.ed.SetValue(v, m, strings.TrimSpace(m.Value+" "+arg)) {
				return
			}
			goto done
		}
	}
	if !mg.ed.AddServiceEnv(compose.ServiceDef{Src: src, Node: node}, db.Name, "POSTGRES_INITDB_ARGS", arg) {
		return
	}
done:
	mg.rep.Change(Change{Kind: "value", Pos: yamledit.NodePos(src, kn), Service: db.Name, Key: "POSTGRES_INITDB_ARGS", After: arg,
		Reason: "local (socket) connections need a password instead of the image's default trust"})
	mg.rep.Add("UDS125", yamledit.NodePos(src, kn), db.Name, "POSTGRES_INITDB_ARGS",
		"POSTGRES_INITDB_ARGS="+arg+" takes effect only when the data directory is created: an existing cluster keeps trust for local connections until pg_hba.conf is changed (local all all "+mg.opts.AuthLocal+") and the server reloads")
}

// authLocalRefused reports (UDS185) and returns true when --auth-local
// would leave db with no way in: without POSTGRES_PASSWORD or
// POSTGRES_PASSWORD_FILE the entrypoint gives initdb an empty superuser
// password (--pwfile with a blank line; POSTGRES_HOST_AUTH_METHOD=trust
// lets it start), and PostgreSQL never accepts an empty password, so every
// socket login would fail. UDS102 is then said, as without --auth-local.
func (mg *migration) authLocalRefused(db *analyze.DB, src *Source) bool {
	if compose.EnvValue(db.Config, "POSTGRES_PASSWORD") != "" || compose.EnvValue(db.Config, "POSTGRES_PASSWORD_FILE") != "" {
		return false
	}
	kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(src)), db.Name)
	mg.rep.Add("UDS185", yamledit.NodePos(src, kn), db.Name, "POSTGRES_INITDB_ARGS",
		fmt.Sprintf("--auth-local=%s is not applied to %s: it sets no POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE), so its superuser's password is empty, which PostgreSQL never accepts, and every socket login would fail; set a password on %s and in its clients' values first", mg.opts.AuthLocal, db.Name, db.Name))
	return true // the next case of migrateDB's switch says UDS102
}

// warnPasswordless reports (UDS185) each value migrated to db under
// --auth-local that carries no password (a URI's user info without one, a
// conninfo without password=) in a service that sets neither PGPASSWORD
// nor PGPASSFILE: once the data directory asks socket logins for a
// password, its connection fails ("no password supplied").
func (mg *migration) warnPasswordless(db *analyze.DB, edges []*analyze.Edge) {
	for _, e := range edges {
		v := e.Var
		svc := mg.p.Model.Services[v.Service]
		if compose.EnvValue(svc, "PGPASSWORD") != "" || compose.EnvValue(svc, "PGPASSFILE") != "" {
			continue
		}
		if given, known := dialect.PasswordGiven(e.Dialect, v.Value); known && !given {
			mg.rep.Add("UDS185", v.Pos, v.Service, v.Key,
				fmt.Sprintf("%s/%s gives no password, and %s sets neither PGPASSWORD nor PGPASSFILE: with --auth-local=%s a new data directory asks socket logins for one, so its connection fails (\"no password supplied\"); add the password to the value, or drop --auth-local", v.Service, v.Key, v.Service, mg.opts.AuthLocal))
		}
	}
}

// warnPlacement reports a service that Swarm may schedule on several
// nodes: a Unix socket in a local volume reaches processes on one host only.
func (mg *migration) warnPlacement(service string) {
	d := mg.p.Model.Services[service].Deploy
	if d == nil || (d.Mode != "global" && len(d.Placement.Constraints) == 0 && len(d.Placement.Preferences) == 0) {
		return
	}
	src, _ := mg.p.ServiceNode(service)
	kn, _ := yamledit.OwnKey(yamledit.Deref(mg.servicesNode(src)), service)
	mg.rep.Add("UDS126", yamledit.NodePos(src, kn), service, "deploy",
		service+" has Swarm placement (deploy.mode global or placement constraints): a Unix socket in a local volume reaches only containers on the same node, so keep the database and its clients on one node or stay on TCP")
}

// tmpfsWhere names a tmpfs on the socket directory as written, with the
// link that makes it the socket directory when the paths differ.
func tmpfsWhere(tmpfs, socketDir string) string {
	if tmpfs == path.Clean(socketDir) {
		return tmpfs
	}
	return fmt.Sprintf("%s (the socket directory %s: /var/run is a symbolic link to /run in the server's image)", tmpfs, socketDir)
}
