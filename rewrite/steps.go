package rewrite

import (
	"fmt"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/proxy"
)

// A migration plan is a list of steps run in order over one pass, as
// go/analysis runs analyzers: each step reads the analysis (computed once,
// never written), edits through the one editor, appends to the one
// report, and returns a result that the steps requiring it read. A step
// keeps its own state; it reads no other step's, and no finding.

// pass is what every step of one plan works with.
type pass struct {
	p    *analyze.Project
	opts Options
	top  analyze.Topology // only read
	ed   *compose.Editor  // the only way the plan changes bytes
	rep  *finding.Report  // findings and changes, in the order they are made
	// results are the results of the steps run so far.
	results map[*step]any
}

// step is one named part of a migration plan: run returns its result.
type step struct {
	name     string
	requires []*step
	run      func(*pass) (any, error)
}

// resultOf returns the result of s, a step the running one requires.
func resultOf[T any](ps *pass, s *step) T { return ps.results[s].(T) }

// The steps of a migration, in the order they run. The order is part of
// the output: edits at one offset apply in the order they were made.
var (
	databasesStep = &step{name: "databases: socket directories and their repairs",
		run: prepareDBs} // → dbPlans
	socketValuesStep = &step{name: "socket values already written: repairs",
		run: repairSocketValues} // → sslClients
	notesStep = &step{name: "clients: what the analysis found (notes and repairs)",
		run: reportAnalysis}
	migrateStep = &step{name: "databases: socket volumes, client values and mounts",
		requires: []*step{databasesStep}, run: migrateDBs} // → clientResult
	sslModeStep = &step{name: "PGSSLMODE beside socket values",
		requires: []*step{socketValuesStep, migrateStep}, run: fixPGSSLMode}
	proxyStep = &step{name: "nginx reverse proxies to app servers",
		run: proxyApps} // → proxy.Result
	// volumes: keys and top-level declarations, the files other than the
	// compose files, the env files refused
	flushStep = &step{name: "edits that wait for all others",
		run: func(ps *pass) (any, error) { return nil, ps.ed.Flush() }}
)

// steps lists the parts of a migration plan in the order they run.
func steps() []*step {
	return []*step{databasesStep, socketValuesStep, notesStep, migrateStep, sslModeStep, proxyStep, flushStep}
}

// newPass starts a pass over a loaded project and its analysis a.
func newPass(p *analyze.Project, opts Options, a analyze.Topology) *pass {
	ps := &pass{p: p, opts: opts, top: a, rep: &finding.Report{}, results: map[*step]any{}}
	ps.ed = compose.NewEditor(p.Project, ps.rep)
	return ps
}

// plan runs every step of a migration over the analysis a.
func plan(p *analyze.Project, opts Options, a analyze.Topology) (*pass, error) {
	ps := newPass(p, opts, a)
	ps.rep.Findings = append(ps.rep.Findings, a.BadConn...)
	if len(a.DBs) > 1 && opts.Volume != "" {
		return nil, fmt.Errorf("--volume names one socket volume, but the project has %d PostgreSQL services; two servers must not share a socket directory", len(a.DBs))
	}
	for _, s := range steps() {
		for _, r := range s.requires {
			if _, ok := ps.results[r]; !ok {
				return nil, fmt.Errorf("internal error: step %q runs before %q, which it requires", s.name, r.name)
			}
		}
		res, err := s.run(ps)
		if err != nil {
			return nil, err
		}
		ps.results[s] = res
	}
	return ps, nil
}

// reportAnalysis reports the analysis' notes, in the order it made them
// (the editor reports a refused file, once per path however often it is
// met), and makes the edits it found certain, in its order: values
// compose would break as written.
func reportAnalysis(ps *pass) (any, error) {
	analyze.ReportNotes(ps.top.Notes, ps.ed, ps.rep)
	for _, r := range ps.top.Repairs {
		v := r.Var
		m, err := interp.Mask(r.Fixed)
		if err == nil && ps.ed.SetValue(v, m, m.Value) {
			ps.rep.Change(Change{Kind: "repair", Pos: v.Pos,
				Service: v.Service, Key: v.Key, Dialect: r.Dialect, Before: dialect.Redact(r.Dialect, v.Raw), After: dialect.Redact(r.Dialect, r.Fixed),
				Reason: "write " + r.How.Fix + " so compose does not interpolate it away"})
			ps.rep.Add("UDS105", v.Pos, v.Service, v.Key,
				v.Service+"/"+v.Key+": "+r.How.What+" was written with one $: "+r.How.Why+"; written "+r.How.Fix)
		}
	}
	return nil, nil
}

// migrateDBs migrates each database with the connection values that reach
// it: the step's result is what it did to the clients (clientResult).
func migrateDBs(ps *pass) (any, error) {
	mg := newMigration(ps, resultOf[dbPlans](ps, databasesStep))
	for _, db := range ps.top.DBs {
		var mine []*analyze.Edge
		for _, e := range ps.top.Edges {
			if e.DB == db {
				mine = append(mine, e)
			}
		}
		if len(mine) > 0 {
			mg.migrateDB(db, mine)
		}
	}
	return mg.out, nil
}

// proxyApps is the nginx → app server migration (package proxy).
func proxyApps(ps *pass) (any, error) {
	return proxy.Run(ps.p.Project, ps.ed, ps.rep, proxy.Options{DropTCP: ps.opts.DropTCP, SocketTarget: socketTarget(ps.opts.MountPath)}), nil
}
