package rewrite

import (
	"maps"
	"slices"
	"sort"

	"github.com/uds-migrate/uds-migrate/pgserver"
)

// analysis is what a loaded project holds before anything is planned: its
// PostgreSQL services and the connection values that do not parse.
type analysis struct {
	dbs     []*dbService
	clients []Client  // the services whose connections the run migrates
	badConn []Finding // UDS163, in "file:line:col" order

	// What the collection found over the clients (analyzeClients; validate
	// and revert do without): the values to rewrite, the edits certain to
	// be needed beside them, the notes about the values left, and the
	// services whose PGSSLMODE stays for a value of theirs left on TCP.
	edges         []*edge
	repairs       []repair
	notes         []note
	keepPGSSLMode map[string]bool
	// shares are the services that read a client's migrated value from
	// the state volume they share: they mount the socket with it.
	shares []stateShare
	// unselected: the services the selection (--only, --exclude) leaves
	// out whose values a migration without it would rewrite, in file
	// order (an empty migration names them).
	unselected []string
}

// Client is a service whose connection values the run migrates: one the
// selection (--only, --exclude) keeps that is not a database. A pooler's
// own connection to PostgreSQL is only its host variables (poolerHop).
type Client struct {
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
	a := analysis{dbs: dbs, badConn: p.badConnFindings(opts)}
	isDB := a.isDB()
	for _, name := range p.ServiceOrder() {
		if !isDB[name] && opts.selects(name) {
			a.clients = append(a.clients, Client{name: name, pooler: pgserver.IsPooler(p.Model.Services[name].Image)})
		}
	}
	return a, nil
}

// analyzeClients is analyze, then the collection over the clients: what a
// migration plans from.
func analyzeClients(p *project, opts Options) (analysis, error) {
	a, err := analyze(p, opts)
	if err != nil {
		return a, err
	}
	cl := newCollector(p, opts, a)
	a.edges = cl.collect()
	a.repairs, a.notes, a.shares = cl.repairs, cl.notes, cl.shares
	a.keepPGSSLMode = keepPGSSLMode(p, a.edges)
	notePGHOSTShadows(p, a.edges)
	if len(opts.Only) > 0 || len(opts.Exclude) > 0 {
		a.unselected = unselectedClients(p, opts, a, cl.scopes)
	}
	return a, nil
}

// unselectedClients names, in file order, the services the selection
// leaves out whose connection values a migration without it would rewrite:
// the collection over every service but the databases (its notes are
// not this run's). sc holds the evidence walks already done.
func unselectedClients(p *project, opts Options, a analysis, sc *scopes) []string {
	all := opts
	all.Only, all.Exclude = nil, nil
	every := analysis{dbs: a.dbs, badConn: p.badConnFindings(all)}
	isDB := a.isDB()
	for _, name := range p.ServiceOrder() {
		if !isDB[name] {
			every.clients = append(every.clients, Client{name: name, pooler: pgserver.IsPooler(p.Model.Services[name].Image)})
		}
	}
	cl := newCollector(p, all, every)
	cl.scopes.root, cl.scopes.files = sc.root, sc.files
	has := map[string]bool{}
	for _, e := range cl.collect() {
		has[e.v.Service] = true
	}
	var out []string
	for _, c := range every.clients {
		if has[c.name] && !opts.selects(c.name) {
			out = append(out, c.name)
		}
	}
	return out
}

// leftOnTCP lists, as service/key in the order a reader meets them, the
// values the analysis leaves on TCP: those that do not parse, those of its
// notes whose code leaves a value (finding.Code.LeavesTCP), and, when the
// plan changed nothing (edited false), the values it was to rewrite.
func (a analysis) leftOnTCP(srcs []*Source, edited bool) []string {
	fs := slices.Clone(a.badConn)
	for _, n := range a.notes {
		if c, _ := LookupCode(n.f.Code); n.refused == nil && c.LeavesTCP {
			fs = append(fs, n.f)
		}
	}
	if !edited {
		for _, e := range a.edges {
			fs = append(fs, Finding{Pos: e.v.Pos, Service: e.v.Service, Key: e.v.Key})
		}
	}
	sortFindings(srcs, fs)
	var out []string
	seen := map[string]bool{}
	for _, f := range fs {
		if f.Service == "" {
			continue
		}
		id := f.Service
		if f.Key != "" {
			id += "/" + f.Key
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// selects reports whether the selection (--only, --exclude) keeps a
// service: the one rule every client filter uses.
func (o Options) selects(name string) bool {
	return (len(o.Only) == 0 || slices.Contains(o.Only, name)) && !slices.Contains(o.Exclude, name)
}

// badConnFindings are the findings of the connection values that do not
// parse, of the services the selection keeps, in "file:line:col" order.
func (p *project) badConnFindings(opts Options) []Finding {
	var out []Finding
	for _, k := range slices.Sorted(maps.Keys(p.badConn)) {
		if f := p.badConn[k]; opts.selects(f.Service) {
			out = append(out, f)
		}
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

// sortFindings orders findings as a reviewer reads: by file, then position.
func sortFindings(srcs []*Source, fs []Finding) {
	rank := map[string]int{}
	for i, s := range srcs {
		rank[s.Path] = i
	}
	// Other files (env files, nginx and app server configs) follow the
	// compose files, in the order they first appear.
	for _, f := range fs {
		if _, ok := rank[f.File]; !ok {
			rank[f.File] = len(rank)
		}
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if rank[a.File] != rank[b.File] {
			return rank[a.File] < rank[b.File]
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}
