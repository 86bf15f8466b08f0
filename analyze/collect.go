package analyze

import (
	"fmt"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// collector finds, over an analysis' databases and clients, the
// connection values the migration rewrites (edges), the edits certain to
// be needed beside them (repairs), and what it has to say about the values
// it leaves (notes). It reads the project; it edits nothing and reports
// nothing: the plan's steps apply what it found.
type collector struct {
	p       *Project
	opts    Options
	dbs     []*DB
	clients []Client
	badConn []finding.Finding // the values that do not parse (UDS163)
	scopes  *hostvar.Scopes   // what evidence readers may look at, per service

	notes   []Note
	repairs []Repair
	// warned: dbAt's warnings, made once per value ("code pos key").
	warned map[string]bool
	// cmdVars: "service/KEY" host variables a command builds its URL
	// from (UDS127 says how to write it).
	cmdVars map[string]bool
	// cfgSocket: service → "file:line" of a socket-form value it reads
	// from a configuration file; sockets are those values, in the order
	// found (revert takes them back to TCP).
	cfgSocket map[string]string
	sockets   []SocketSetting
	// tooBig: configuration files reported with UDS173 (overLimit).
	tooBig map[string]bool
	// configTargets: "service/configs.NAME" → the container path of an
	// inline config the service mounts (envDocs.configEdges).
	configTargets map[string]string
	// shares are the services that read a client's migrated value from
	// the state volume they share (sharedstate.go): they mount the socket.
	shares []StateShare
	// fileHosts: the socket-form URIs naming the socket file (Topology.FileHosts).
	fileHosts map[string]FileHost
}

// A Note is what the collection says about a value, in the order it
// found it: a finding, or a file refused because it leads out of the
// project (UDS172, which the editor reports once per path). A note made
// before the shared-env fixpoint may depend on its outcome: a host
// variable's decision (UDS150, UDS152) holds only if its edge is still
// rewritten (edge), a command's manual step (UDS127) only if the command
// does not follow a variable whose env file line is rewritten (command,
// "service/key"); resolve keeps the notes that hold before any is
// reported.
type Note struct {
	Finding finding.Finding
	Refused *Refusal
	edge    *Edge
	command string
}

// Refusal is a file the collection did not read: it leads out of the
// project through a symbolic link.
type Refusal struct {
	Path string
	Err  error
}

// Repair is an edit the collection found certain: a value compose would
// break as written ($FactoryArg with one $).
type Repair struct {
	Var     compose.EnvVar
	Fixed   string // the value as it should be written
	Dialect string
	How     dialect.Repaired
}

// EnvAdd is KEY=value to write after a rewritten host variable (its port,
// a variable the catalogue sets with it), and why.
type EnvAdd struct {
	Key, Value, Reason string
}

func newCollector(p *Project, opts Options, a Topology) *collector {
	cl := &collector{p: p, opts: opts, dbs: a.DBs, clients: a.Clients, badConn: a.BadConn,
		warned: map[string]bool{}, fileHosts: map[string]FileHost{}, cmdVars: map[string]bool{}, cfgSocket: map[string]string{}, tooBig: map[string]bool{}, configTargets: map[string]string{}}
	cl.scopes = hostvar.NewScopes(p.Project, cl.readFile, cl.refuse)
	return cl
}

// collect finds the edges of the analysis' clients: environment values
// (those an env file line shares with a service that keeps TCP left out),
// configuration files, Rails' database.yml and code defaults; then the
// warnings about connections it cannot see.
func (cl *collector) collect() []*Edge {
	edges, followed := (sharedEnv{cl}).keep(cl.writableEdges(cl.collectEdges()))
	edges = append(edges, (fileValues{cl}).configEdges()...)
	edges = append(edges, (fileValues{cl}).cataloguedFiles()...)
	edges = append(edges, (envDocs{cl}).configEdges()...)
	edges = append(edges, (fileValues{cl}).rails()...)
	edges = append(edges, (codeDefaults{cl}).edges(edges)...)
	(imageDotenv{cl}).warn()
	cl.resolve(edges, followed)
	cl.shares, edges = (sharedState{cl}).find(edges)
	(hiddenClients{cl}).warn(edges)
	return edges
}

// note appends a finding to the notes and returns it (to attach a Basis).
func (cl *collector) note(code string, at finding.Pos, service, key, msg string) *finding.Finding {
	cl.notes = append(cl.notes, Note{Finding: finding.New(code, at, service, key, msg)})
	return &cl.notes[len(cl.notes)-1].Finding
}

// decision appends a note that holds only if e is still rewritten once the
// shared-env fixpoint is done.
func (cl *collector) decision(e *Edge, code string, at finding.Pos, service, key, msg string) *finding.Finding {
	cl.notes = append(cl.notes, Note{Finding: finding.New(code, at, service, key, msg), edge: e})
	return &cl.notes[len(cl.notes)-1].Finding
}

// commandNote appends a command's manual step (UDS127), which holds only
// if the command does not follow a rewritten variable.
func (cl *collector) commandNote(at finding.Pos, service, key, msg string) {
	cl.notes = append(cl.notes, Note{Finding: finding.New("UDS127", at, service, key, msg), command: service + "/" + key})
}

// resolve keeps the notes that hold: a decision whose edge is among edges,
// a command's manual step unless the command is followed.
func (cl *collector) resolve(edges []*Edge, followed map[string]bool) {
	kept := map[*Edge]bool{}
	for _, e := range edges {
		kept[e] = true
	}
	var out []Note
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
		// A file beyond the read limits (UDS173, an icon set's JSON)
		// says nothing about the service's connection.
		if n.Refused == nil && n.Finding.Code != "UDS173" {
			out[n.Finding.Service] = true
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
	cl.notes = append(cl.notes, Note{Refused: &Refusal{Path: path, Err: err}})
}

// dbAt returns the database host (written in v) reaches from v's service,
// warning once at v when the name would reach a database but cannot be
// followed to exactly one from there: the value stays on TCP.
func (cl *collector) dbAt(v compose.EnvVar, host string) *DB {
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
)

// SocketSetting is a socket-form connection value a client reads from a
// configuration file, from a configuration document in its environment,
// or from Rails' database.yml (its host, or url): what revert takes back
// to TCP. In is where it is written, nil where the tool cannot edit it
// exactly (a folded scalar, a ${...} reference in the document).
type SocketSetting struct {
	Service, Key string
	Pos          finding.Pos // where the value is written
	Dialect      string      // dialect.Classify's; the host variable dialect for Rails' host
	Value        string      // as the client reads it
	In           *ConfigValue
	// Host: the value is a host setting, the socket directory itself
	// (Rails' host), which goes back to the database's name.
	Host bool
	// Port, for a host setting of a catalogued file (catalog.File), is
	// the port its reader opens .s.PGSQL.<port> with: the file's port
	// setting, else 5432.
	Port int
}

// sawSocket records a socket-form value a client reads from a
// configuration file or document (s.Pos is its file and line).
func (cl *collector) sawSocket(s SocketSetting) {
	cl.cfgSocket[s.Service] = fmt.Sprintf("%s:%d", s.Pos.File, s.Pos.Line)
	cl.sockets = append(cl.sockets, s)
}

// SocketSettings reads the configuration files of top's clients (and
// Rails' database.yml, configuration documents in environment values and
// inline configs)
// and returns the socket-form values each client reads from one, with the
// notes the reading made (a file refused, one beyond the limits). scopes
// are the files it found reaching each service, for more evidence.
func SocketSettings(p *Project, opts Options, top Topology) (sockets []SocketSetting, notes []Note, scopes *hostvar.Scopes) {
	cl := newCollector(p, opts, top)
	(fileValues{cl}).configEdges()
	(fileValues{cl}).cataloguedFiles()
	(fileValues{cl}).rails()
	(envDocs{cl}).markSockets()
	(envDocs{cl}).markConfigSockets()
	return cl.sockets, cl.notes, cl.scopes
}

// Reads answers, over one project and its analysis, the questions
// validate shares with the migration's collection: which variables a
// service reads, which configuration files reach its clients.
type Reads struct{ cl *collector }

// NewReads answers over p and its analysis top (whose clients' files it
// reads).
func NewReads(p *Project, opts Options, top Topology) Reads {
	return Reads{newCollector(p, opts, top)}
}

// Ignores reports whether service does not read key, a variable it only
// inherits from an env file (inheritedVars).
func (r Reads) Ignores(service, key string) bool {
	_, ignores := (inheritedVars{r.cl}).ignores(service, key)
	return ignores
}

// CatalogueFileSockets lists the socket-form settings of the
// configuration files the clients' catalogued images read (catalog.File:
// gatus' storage.path, pretalx's [database] host), for validate.
func (r Reads) CatalogueFileSockets() []SocketSetting {
	n := len(r.cl.sockets)
	(fileValues{r.cl}).cataloguedFiles()
	return r.cl.sockets[n:]
}

// TakesDir reports whether service's variable key is one a socket
// directory goes in as a host, by the rules migrate writes one there
// (hostvar.WrittenAsDir: a host key, --host-var, the catalogue, or
// evidence in the project that hands it to a driver's host, Django's
// HOST reading DB_SERVICE).
func (r Reads) TakesDir(service, key string) bool {
	return hostvar.WrittenAsDir(r.cl.p.Project, r.cl.scopes, r.cl.opts.HostVars, service, key)
}

// ConfigSettings lists the settings of the configuration files reaching
// each client of the analysis, in service order (a file beyond the limits
// is noted, UDS173, and skipped).
func (r Reads) ConfigSettings() []ConfigSetting {
	return (fileValues{r.cl}).settings()
}
