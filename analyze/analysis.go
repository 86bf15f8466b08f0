package analyze

import (
	"maps"
	"regexp"
	"slices"
	"sort"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/pgserver"
)

// Topology is what a loaded project holds before anything is planned: its
// PostgreSQL services and the connection values that do not parse.
type Topology struct {
	DBs     []*DB
	Clients []Client          // the services whose connections the run migrates
	BadConn []finding.Finding // UDS163, in "file:line:col" order

	// What the collection found over the clients (Analyze; validate
	// and revert do without): the values to rewrite, the edits certain to
	// be needed beside them, the notes about the values left, and the
	// services whose PGSSLMODE stays for a value of theirs left on TCP.
	Edges         []*Edge
	Repairs       []Repair
	Notes         []Note
	KeepPGSSLMode map[string]bool
	// FileHosts are the socket-form URIs whose ?host= names the socket
	// file, by the value's position (finding.Pos.String()): whether its
	// reader takes the file, and the basis for repairing it if not.
	FileHosts map[string]FileHost
	// Shares are the services that read a client's migrated value from
	// the state volume they share: they mount the socket with it.
	Shares []StateShare
	// Unselected: the services the selection (--only, --exclude) leaves
	// out whose values a migration without it would rewrite, in file
	// order (an empty migration names them).
	Unselected []string
}

// Client is a service whose connection values the run migrates: one the
// selection (--only, --exclude) keeps that is not a database. A pooler's
// own connection to PostgreSQL is only its host variables (poolerHop).
type Client struct {
	Name   string
	Pooler bool
}

// Databases finds the databases of a loaded project and the connection
// values every command skips; the error is a --db or --socket-dir that
// names no usable service.
func Databases(p *Project, opts Options) (Topology, error) {
	dbs, err := p.findDBs(opts)
	if err != nil {
		return Topology{}, err
	}
	a := Topology{DBs: dbs, BadConn: p.BadConnFindings(opts)}
	isDB := a.IsDB()
	for _, name := range p.ServiceOrder() {
		if !isDB[name] && opts.selects(name) {
			a.Clients = append(a.Clients, Client{Name: name, Pooler: pgserver.IsPooler(p.Model.Services[name].Image)})
		}
	}
	return a, nil
}

// Analyze is Databases, then the collection over the clients: what a
// migration plans from.
func Analyze(p *Project, opts Options) (Topology, error) {
	a, err := Databases(p, opts)
	if err != nil {
		return a, err
	}
	cl := newCollector(p, opts, a)
	a.Edges = cl.collect()
	throughBuilds(cl, a.Edges, cl.notes)
	a.Repairs, a.Notes, a.Shares, a.FileHosts = cl.repairs, cl.notes, cl.shares, cl.fileHosts
	a.KeepPGSSLMode = keepPGSSLMode(p, a.Edges)
	notePGHOSTShadows(p, a.Edges)
	if len(opts.Only) > 0 || len(opts.Exclude) > 0 {
		a.Unselected = unselectedClients(p, opts, a, cl.scopes)
	}
	return a, nil
}

// unselectedClients names, in file order, the services the selection
// leaves out whose connection values a migration without it would rewrite:
// the collection over every service but the databases (its notes are
// not this run's). sc holds the evidence walks already done.
func unselectedClients(p *Project, opts Options, a Topology, sc *hostvar.Scopes) []string {
	all := opts
	all.Only, all.Exclude = nil, nil
	every := Topology{DBs: a.DBs, BadConn: p.BadConnFindings(all)}
	isDB := a.IsDB()
	for _, name := range p.ServiceOrder() {
		if !isDB[name] {
			every.Clients = append(every.Clients, Client{Name: name, Pooler: pgserver.IsPooler(p.Model.Services[name].Image)})
		}
	}
	cl := newCollector(p, all, every)
	cl.scopes.Reuse(sc)
	has := map[string]bool{}
	for _, e := range cl.collect() {
		has[e.Var.Service] = true
	}
	var out []string
	for _, c := range every.Clients {
		if has[c.Name] && !opts.selects(c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

// LeftOnTCP lists, as service/key in the order a reader meets them, the
// values the analysis leaves on TCP: those that do not parse, those of its
// notes whose code leaves a value (finding.Code.LeavesTCP), and, when the
// plan changed nothing (edited false), the values it was to rewrite. A
// note about a client's tie to a database (depends_on, links,
// network_mode: UDS131 for a client whose connection is out of view) is
// no value: OutOfView lists those.
func (a Topology) LeftOnTCP(srcs []*compose.Source, edited bool) []string {
	values, _ := a.leftOnTCP(srcs, edited)
	return values
}

// OutOfView lists, as service/key, the clients left on TCP whose
// connection no value the tool reads holds: the notes LeftOnTCP leaves
// out, at depends_on, links or network_mode.
func (a Topology) OutOfView(srcs []*compose.Source) []string {
	_, ties := a.leftOnTCP(srcs, true)
	return ties
}

// tieKeys are the keys that tie a client to a database without holding a
// connection value.
var tieKeys = map[string]bool{"depends_on": true, "links": true, "network_mode": true}

func (a Topology) leftOnTCP(srcs []*compose.Source, edited bool) (values, ties []string) {
	fs := slices.Clone(a.BadConn)
	for _, n := range a.Notes {
		if c, _ := finding.Lookup(n.Finding.Code); n.Refused == nil && c.LeavesTCP {
			fs = append(fs, n.Finding)
		}
	}
	if !edited {
		for _, e := range a.Edges {
			fs = append(fs, finding.Finding{Pos: e.Var.Pos, Service: e.Var.Service, Key: e.Var.Key})
		}
	}
	SortFindings(srcs, fs)
	seen := map[string]bool{}
	for _, f := range fs {
		if f.Service == "" {
			continue
		}
		id := f.Service
		switch {
		case fileKeyRE.MatchString(f.Key):
			id += " (" + f.Key + ")" // a file (backend/main.go), not a variable: backend (backend/main.go)
		case f.Key != "":
			id += "/" + f.Key
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if tieKeys[f.Key] {
			ties = append(ties, id)
		} else {
			values = append(values, id)
		}
	}
	return values, ties
}

// fileKeyRE matches a finding key that is a file (a connection written in
// code, UDS131), not a variable or a configuration key (database.connection).
var fileKeyRE = regexp.MustCompile(`/|\.(py|js|mjs|cjs|ts|go|rb|exs|ex|php|ml|java|kt|scala|clj|cs|rs|json|ya?ml|toml|ini|conf|properties|env)$`)

// selects reports whether the selection (--only, --exclude) keeps a
// service: the one rule every client filter uses.
func (o Options) selects(name string) bool {
	return (len(o.Only) == 0 || slices.Contains(o.Only, name)) && !slices.Contains(o.Exclude, name)
}

// BadConnFindings are the findings of the connection values that do not
// parse, of the services the selection keeps, in "file:line:col" order.
func (p *Project) BadConnFindings(opts Options) []finding.Finding {
	var out []finding.Finding
	for _, k := range slices.Sorted(maps.Keys(p.badConn)) {
		if f := p.badConn[k]; opts.selects(f.Service) {
			out = append(out, f)
		}
	}
	return out
}

// IsDB is the set of database service names.
func (a Topology) IsDB() map[string]bool {
	out := map[string]bool{}
	for _, db := range a.DBs {
		out[db.Name] = true
	}
	return out
}

// SortFindings orders findings as a reviewer reads: by file, then position.
func SortFindings(srcs []*compose.Source, fs []finding.Finding) {
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
