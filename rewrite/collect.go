package rewrite

import (
	"fmt"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
)

// collector finds, over an analysis' databases and clients, the
// connection values the migration rewrites (edges), the edits certain to
// be needed beside them (repairs), and what it has to say about the values
// it leaves (notes). It reads the project; it edits nothing and reports
// nothing: the plan's steps apply what it found.
type collector struct {
	p       *project
	opts    Options
	dbs     []*dbService
	clients []client
	badConn []Finding // the values that do not parse (UDS163)
	scopes  *scopes   // what evidence readers may look at, per service

	notes   []note
	repairs []repair
	// warned: dbAt's warnings, made once per value ("code pos key").
	warned map[string]bool
	// cmdVars: "service/KEY" host variables a command builds its URL
	// from (UDS127 says how to write it).
	cmdVars map[string]bool
	// cfgSocket: service → "file:line" of a socket-form value it reads
	// from a configuration file.
	cfgSocket map[string]string
	// tooBig: configuration files reported with UDS173 (overLimit).
	tooBig map[string]bool
	// shares are the services that read a client's migrated value from
	// the state volume they share (sharedstate.go): they mount the socket.
	shares []stateShare
}

// A note is what the collection says about a value, in the order it
// found it: a finding, or a file refused because it leads out of the
// project (UDS172, which the editor reports once per path). A note made
// before the shared-env fixpoint may depend on its outcome: a host
// variable's decision (UDS150, UDS152) holds only if its edge is still
// rewritten (edge), a command's manual step (UDS127) only if the command
// does not follow a variable whose env file line is rewritten (command,
// "service/key"); resolve keeps the notes that hold before any is
// reported.
type note struct {
	f       Finding
	refused *refusal
	edge    *edge
	command string
}

// refusal is a file the collection did not read: it leads out of the
// project through a symbolic link.
type refusal struct {
	path string
	err  error
}

// repair is an edit the collection found certain: a value compose would
// break as written ($FactoryArg with one $).
type repair struct {
	v     compose.EnvVar
	fixed string // the value as it should be written
	dname string
	how   dialect.Repaired
}

// envAdd is KEY=value to write after a rewritten host variable (its port,
// a variable the catalogue sets with it), and why.
type envAdd struct {
	key, value, reason string
}

func newCollector(p *project, opts Options, a analysis) *collector {
	cl := &collector{p: p, opts: opts, dbs: a.dbs, clients: a.clients, badConn: a.badConn,
		warned: map[string]bool{}, cmdVars: map[string]bool{}, cfgSocket: map[string]string{}, tooBig: map[string]bool{}}
	cl.scopes = newScopes(p, cl.readFile, cl.refuse)
	return cl
}

// collect finds the edges of the analysis' clients: environment values
// (those an env file line shares with a service that keeps TCP left out),
// configuration files, Rails' database.yml and code defaults; then the
// warnings about connections it cannot see.
func (cl *collector) collect() []*edge {
	edges, followed := (sharedEnv{cl}).keep(cl.writableEdges(cl.collectEdges()))
	edges = append(edges, (fileValues{cl}).configEdges()...)
	edges = append(edges, (fileValues{cl}).rails()...)
	edges = append(edges, (codeDefaults{cl}).edges(edges)...)
	(imageDotenv{cl}).warn()
	cl.resolve(edges, followed)
	cl.shares, edges = (sharedState{cl}).find(edges)
	(hiddenClients{cl}).warn(edges)
	return edges
}

// note appends a finding to the notes and returns it (to attach a Basis).
func (cl *collector) note(code string, at Pos, service, key, msg string) *Finding {
	cl.notes = append(cl.notes, note{f: finding.New(code, at, service, key, msg)})
	return &cl.notes[len(cl.notes)-1].f
}

// decision appends a note that holds only if e is still rewritten once the
// shared-env fixpoint is done.
func (cl *collector) decision(e *edge, code string, at Pos, service, key, msg string) *Finding {
	cl.notes = append(cl.notes, note{f: finding.New(code, at, service, key, msg), edge: e})
	return &cl.notes[len(cl.notes)-1].f
}

// commandNote appends a command's manual step (UDS127), which holds only
// if the command does not follow a rewritten variable.
func (cl *collector) commandNote(at Pos, service, key, msg string) {
	cl.notes = append(cl.notes, note{f: finding.New("UDS127", at, service, key, msg), command: service + "/" + key})
}

// resolve keeps the notes that hold: a decision whose edge is among edges,
// a command's manual step unless the command is followed.
func (cl *collector) resolve(edges []*edge, followed map[string]bool) {
	kept := map[*edge]bool{}
	for _, e := range edges {
		kept[e] = true
	}
	var out []note
	for _, n := range cl.notes {
		if (n.edge != nil && !kept[n.edge]) || (n.command != "" && followed[n.command]) {
			continue
		}
		n.edge, n.command = nil, ""
		out = append(out, n)
	}
	cl.notes = out
}

// reported lists the services the notes are about.
func (cl *collector) reported() map[string]bool {
	out := map[string]bool{}
	for _, n := range cl.notes {
		if n.refused == nil {
			out[n.f.Service] = true
		}
	}
	return out
}

// readFile reads a file that is not a compose file, refusing (a note) one
// that leads out of the project through a symbolic link.
func (cl *collector) readFile(path string) ([]byte, error) {
	if err := cl.p.Escapes(path); err != nil {
		cl.refuse(path, err)
		return nil, err
	}
	return cl.p.ReadFile(path)
}

// refuse notes a file left unread because it leads out of the project.
func (cl *collector) refuse(path string, err error) {
	cl.notes = append(cl.notes, note{refused: &refusal{path: path, err: err}})
}

// dbAt returns the database host (written in v) reaches from v's service,
// warning once at v when the name would reach a database but cannot be
// followed to exactly one from there: the value stays on TCP.
func (cl *collector) dbAt(v compose.EnvVar, host string) *dbService {
	db, code, why := cl.p.dbFor(cl.dbs, v.Service, host)
	if code == "" {
		return db
	}
	id := code + " " + v.Pos.String() + " " + v.Key
	if cl.warned[id] {
		return nil
	}
	cl.warned[id] = true
	cl.note(code, v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s names the host %s, but %s; left on TCP", v.Service, v.Key, host, why))
	return nil
}

// The collection's parts, each a view of the collector for one kind of
// value (their notes go to the collector's).
type (
	// fileValues are connection values in configuration files that reach
	// a client's container, and Rails' database.yml.
	fileValues struct{ cl *collector }
	// codeDefaults are host variables a client's code falls back from.
	codeDefaults struct{ cl *collector }
	// hiddenClients are clients that depend on a database and show no
	// connection value.
	hiddenClients struct{ cl *collector }
	// sharedEnv are env file lines that other uses need unchanged.
	sharedEnv struct{ cl *collector }
	// uriReaders decide the reader of a connection URI, and so its form.
	uriReaders struct{ cl *collector }
)
