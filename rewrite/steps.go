package rewrite

import (
	"fmt"
	"maps"
	"slices"

	"github.com/uds-migrate/uds-migrate/pgserver"
	"github.com/uds-migrate/uds-migrate/proxy"
)

// analysis is what a loaded project holds before anything is planned: its
// PostgreSQL services and the connection values that do not parse.
type analysis struct {
	dbs     []*dbService
	clients []client  // the services whose connections the run migrates
	badConn []Finding // UDS163, in "file:line:col" order
}

// client is a service whose connection values the run migrates: one the
// selection (--only, --exclude) keeps that is not a database. A pooler's
// own connection to PostgreSQL is only its host variables (poolerHop).
type client struct {
	name   string
	pooler bool
}

// analyze finds the databases of a loaded project and the connection
// values every command skips; the error is a --db or --socket-dir that
// names no usable service.
func analyze(p *project, opts Options) (analysis, error) {
	dbs, err := p.findDBs(opts)
	if err != nil {
		return analysis{}, err
	}
	a := analysis{dbs: dbs, badConn: p.badConnFindings()}
	isDB := a.isDB()
	for _, name := range p.ServiceOrder() {
		if !isDB[name] && opts.selects(name) {
			a.clients = append(a.clients, client{name: name, pooler: pgserver.IsPooler(p.Model.Services[name].Image)})
		}
	}
	return a, nil
}

// selects reports whether the selection (--only, --exclude) keeps a
// service: the one rule every client filter uses.
func (o Options) selects(name string) bool {
	return (len(o.Only) == 0 || contains(o.Only, name)) && !contains(o.Exclude, name)
}

// badConnFindings are the findings of the connection values that do not
// parse, in "file:line:col" order.
func (p *project) badConnFindings() []Finding {
	var out []Finding
	for _, k := range slices.Sorted(maps.Keys(p.badConn)) {
		out = append(out, p.badConn[k])
	}
	return out
}

// isDB is the set of database service names.
func (a analysis) isDB() map[string]bool {
	out := map[string]bool{}
	for _, db := range a.dbs {
		out[db.name] = true
	}
	return out
}

// step is one named part of a migration plan.
type step struct {
	name string
	run  func() error
}

// steps lists the parts of a migration plan in the order they run; each
// reads the analysis and what the steps before it planned.
func (pl *planner) steps(a analysis) []step {
	var edges []*edge // the clients' connection values, found by "clients"
	return []step{
		{"databases: socket directories and their repairs", func() error {
			for _, db := range a.dbs {
				pl.prepareDB(db)
			}
			return nil
		}},
		{"socket values already written: repairs", func() error {
			pl.repairSocketValues()
			return nil
		}},
		{"clients: connection values", func() error {
			edges = append(pl.keepSharedEnv(pl.collectEdges(a.dbs)), pl.collectConfigEdges(a.dbs)...)
			edges = append(edges, pl.railsEdges(a.dbs)...)
			edges = append(edges, pl.codeDefaultEdges(a.dbs, edges)...)
			(imageDotenv{pl}).warn(a.dbs)
			pl.warnHidden(a.dbs, edges)
			pl.planKeepPGSSLMode(edges)
			return nil
		}},
		{"databases: socket volumes, client values and mounts", func() error {
			pl.migrateDBs(a.dbs, edges)
			return nil
		}},
		{"PGSSLMODE beside socket values", func() error {
			pl.fixPGSSLMode()
			return nil
		}},
		{"nginx reverse proxies to app servers", func() error {
			proxy.Run(pl.p.Project, pl.ed, &pl.rep, proxy.Options{DropTCP: pl.opts.DropTCP, SocketTarget: pl.socketTarget})
			return nil
		}},
		// volumes: keys and top-level declarations, the files other than
		// the compose files, the env files refused
		{"edits that wait for all others", pl.ed.Flush},
	}
}

// run plans the whole migration: each step in order over the analysis a,
// which it only reads.
func (pl *planner) run(a analysis) error {
	pl.dbs, pl.top = a.dbs, a
	pl.rep.Findings = append(pl.rep.Findings, a.badConn...)
	if len(a.dbs) > 1 && pl.opts.Volume != "" {
		return fmt.Errorf("--volume names one socket volume, but the project has %d PostgreSQL services; two servers must not share a socket directory", len(a.dbs))
	}
	for _, s := range pl.steps(a) {
		if err := s.run(); err != nil {
			return err
		}
	}
	return nil
}

// migrateDBs migrates each database with the connection values that reach
// it.
func (pl *planner) migrateDBs(dbs []*dbService, edges []*edge) {
	for _, db := range dbs {
		var mine []*edge
		for _, e := range edges {
			if e.db == db {
				mine = append(mine, e)
			}
		}
		if len(mine) > 0 {
			pl.migrateDB(db, mine)
		}
	}
}
