package finding

import (
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/docs"
)

// Code is one finding code. ID is stable (never reused for another
// meaning); Severity is what every finding of the code carries (the code
// decides it, not the call site); Title is one line (explain, SARIF
// shortDescription); Doc is the cause and fix in markdown, read from the
// embedded docs/findings.md, which holds that text once for explain, SARIF
// fullDescription, README's findings table and the web.
type Code struct {
	ID       string
	Severity Severity
	Title    string
	Doc      string
	// Manual marks findings that leave work for a person: plan lists
	// their messages as manual steps.
	Manual bool
	// CarriedAs, when set, is the severity migrate gives a validate error
	// of this code that it carries into its output because it cannot
	// repair it with certainty (which absolute directory a relative host
	// meant): the output keeps the value, and migrate reports it at the
	// input's position instead of refusing the whole file.
	CarriedAs Severity
	// LeavesTCP marks findings that leave a client's connection value on
	// TCP; migrate's summary names those values.
	LeavesTCP bool
}

// HelpURI is the web address of the code's section in docs/findings.md.
func (c Code) HelpURI() string { return docs.HelpURI(c.ID) }

// InputErrorCode is the code of an input that cannot be read or loaded
// (exit 2); it is a finding only in the json, sarif and gcc formats.
const InputErrorCode = "UDS001"

// RunErrorCode is the code of a command line the tool refuses or a run
// that cannot finish (exit 2); a finding only in the json, sarif and gcc
// formats, where the document must stay the whole of its stream.
const RunErrorCode = "UDS002"

// codes is the registry of finding codes, sorted by ID (TestCodeRegistry).
// UDS215 is the one code migrate reports below its severity: a relative
// socket directory it cannot repair is carried into the output as a
// warning (CarriedAs), while validate reports it as an error.
var codes = withDocs([]Code{
	{ID: "UDS001", Severity: SevError, Title: "input cannot be read or loaded as a compose project"},
	{ID: "UDS002", Severity: SevError, Title: "the command line is refused or the run cannot finish"},
	{ID: "UDS101", Severity: SevWarning, Title: "Java client needs junixsocket on its classpath", Manual: true},
	{ID: "UDS102", Severity: SevWarning, Title: "local socket connections are trusted by the official image", Manual: true},
	{ID: "UDS103", Severity: SevWarning, Title: "sslmode/ssl removed from a JDBC URL (fails over a socket)"},
	{ID: "UDS104", Severity: SevWarning, Title: "sslmode set to disable in a socket value (TLS does not apply on a socket; some drivers fail when asked for it)", Manual: true},
	{ID: "UDS105", Severity: SevWarning, Title: "single-$ $FactoryArg repaired"},
	{ID: "UDS106", Severity: SevWarning, Title: "host bind mount used for the socket directory", Manual: true},
	{ID: "UDS107", Severity: SevWarning, Title: "read-only socket directory made writable"},
	{ID: "UDS108", Severity: SevWarning, Title: "tmpfs on the socket directory replaced by the socket volume"},
	{ID: "UDS109", Severity: SevWarning, Title: "Bitnami image: the socket volume is mounted over /tmp"},
	{ID: "UDS110", Severity: SevWarning, Title: "multi-host URL left on TCP (a socket cannot fail over)", Manual: true, LeavesTCP: true},
	{ID: "UDS111", Severity: SevWarning, Title: "value or mapping the tool cannot edit exactly", Manual: true, LeavesTCP: true},
	{ID: "UDS112", Severity: SevWarning, Title: "the default socket volume name is taken by another volume: a fresh name is used"},
	{ID: "UDS113", Severity: SevWarning, Title: "--db image: how it authenticates socket connections is unknown", Manual: true},
	{ID: "UDS114", Severity: SevWarning, Title: "PGSSLMODE kept: other values of the service stay on TCP; the socket values set sslmode=disable themselves", Manual: true},
	{ID: "UDS120", Severity: SevWarning, Title: "connection split into variables: a host variable the tool cannot rewrite safely", Manual: true, LeavesTCP: true},
	{ID: "UDS121", Severity: SevWarning, Title: "client reaches a connection pooler, left on TCP", Manual: true, LeavesTCP: true},
	{ID: "UDS122", Severity: SevWarning, Title: "URL-shaped value for a database in a form the tool does not know", Manual: true, LeavesTCP: true},
	{ID: "UDS123", Severity: SevWarning, Title: "Rails before 7.0 ignores ?host= in DATABASE_URL"},
	{ID: "UDS124", Severity: SevWarning, Title: "R2DBC over a socket needs netty's native epoll transport"},
	{ID: "UDS125", Severity: SevWarning, Title: "--auth-local applies to a new data directory only"},
	{ID: "UDS126", Severity: SevWarning, Title: "service placed on several hosts (Swarm): a socket reaches one host only"},
	{ID: "UDS127", Severity: SevWarning, Title: "connection string inside command:/entrypoint: left unchanged", LeavesTCP: true},
	{ID: "UDS128", Severity: SevWarning, Title: "client names a port the compose file does not show the server listening on"},
	{ID: "UDS129", Severity: SevWarning, Title: "an existing JDBC socketFactory was replaced by junixsocket's"},
	{ID: "UDS130", Severity: SevWarning, Title: "--jdbc-factory sysprop: one socket file per JVM"},
	{ID: "UDS131", Severity: SevWarning, Title: "client depends on a database but shows no connection value", LeavesTCP: true},
	{ID: "UDS132", Severity: SevWarning, Title: "socket directories leave out /var/run/postgresql: the official image's first-start init fails"},
	{ID: "UDS133", Severity: SevWarning, Title: "PGHOST/PGHOSTADDR set on the database service breaks init scripts"},
	{ID: "UDS134", Severity: SevWarning, Title: "host named the socket file: set to its directory"},
	{ID: "UDS135", Severity: SevWarning, Title: "JDBC URL left on TCP: the service's build does not declare junixsocket", Manual: true, LeavesTCP: true},
	{ID: "UDS136", Severity: SevInfo, Title: "socket mounted on a service that reads the migrated connection from a state volume it shares"},
	{ID: "UDS137", Severity: SevInfo, Title: "client depends on a database, but neither its environment nor its code in view names the server: no connection to migrate"},
	{ID: "UDS138", Severity: SevWarning, Title: "socket URI whose ?host= names the socket file, reader unknown: left as written (--consumer names it)", Manual: true},
	{ID: "UDS140", Severity: SevWarning, Title: "extra_hosts maps a database's name elsewhere: left on TCP", LeavesTCP: true},
	{ID: "UDS141", Severity: SevWarning, Title: "a name reaches two servers on the networks a client shares with them: left on TCP", LeavesTCP: true},
	{ID: "UDS142", Severity: SevWarning, Title: "network_mode host/service:/container: changes what names mean: left on TCP", LeavesTCP: true},
	{ID: "UDS143", Severity: SevWarning, Title: "connection string in a ${VAR:-default} default rewritten: a set VAR overrides it"},
	{ID: "UDS150", Severity: SevInfo, Title: "host variable or connection URI set to the socket form the image catalogue says the image takes"},
	{ID: "UDS151", Severity: SevWarning, Title: "host variable of a catalogued image that does not take a socket directory: left on TCP", Manual: true, LeavesTCP: true},
	{ID: "UDS152", Severity: SevInfo, Title: "host variable set to the socket directory on the user's word (--host-var)"},
	{ID: "UDS153", Severity: SevWarning, Title: "connection URI whose reader takes no socket URI: left on TCP", Manual: true, LeavesTCP: true},
	{ID: "UDS154", Severity: SevWarning, Title: "connection URI whose reader the tool cannot establish: left on TCP (--consumer names it)", Manual: true, LeavesTCP: true},
	{ID: "UDS155", Severity: SevInfo, Title: "connection URI written in the socket form its reader takes, on evidence in the project"},
	{ID: "UDS160", Severity: SevWarning, Title: "a shared env file value is also used where the socket is not mounted; left on TCP", LeavesTCP: true},
	{ID: "UDS161", Severity: SevWarning, Title: "the server creates no Unix socket (empty unix_socket_directories); left on TCP"},
	{ID: "UDS162", Severity: SevWarning, Title: "a client uses a socket in a bind-mounted host directory no project service serves (a foreign server); left as it is"},
	{ID: "UDS163", Severity: SevWarning, Title: "a connection value that does not parse; left unchanged, the rest migrated", LeavesTCP: true},
	{ID: "UDS164", Severity: SevWarning, Title: "a ${VAR} that stood for the host or port is gone from the socket form"},
	{ID: "UDS165", Severity: SevWarning, Title: "a connection value names a service not recognised as PostgreSQL; use --db SERVICE", LeavesTCP: true},
	{ID: "UDS166", Severity: SevInfo, Title: "a shared env file's host variable stays for its other uses; the client gets the socket directory in its own environment:"},
	{ID: "UDS170", Severity: SevWarning, Title: "host variable set to the socket directory on evidence in the project"},
	{ID: "UDS171", Severity: SevWarning, Title: "Rails database.yml ERB default edited: every service without the variable gets it"},
	{ID: "UDS172", Severity: SevWarning, Title: "a path in the project leads outside it through a symbolic link: not read or edited", Manual: true},
	{ID: "UDS173", Severity: SevWarning, Title: "a configuration file beyond the tool's limits (512 KB, 64 levels of nesting): not read", Manual: true},
	{ID: "UDS174", Severity: SevWarning, Title: "reverted value keeps the socket form's sslmode=disable: revert cannot know the sslmode it had", Manual: true},
	{ID: "UDS180", Severity: SevWarning, Title: "a combination of the project's compose files (base alone, base + an override) fails validation after the migration", Manual: true},
	{ID: "UDS181", Severity: SevWarning, Title: "a connection value in a dotenv file that reaches the container and that the code loads: left on TCP", Manual: true, LeavesTCP: true},
	{ID: "UDS182", Severity: SevWarning, Title: "a connection inside a configuration document held in one environment variable, where the tool cannot edit it: left on TCP", Manual: true, LeavesTCP: true},
	{ID: "UDS183", Severity: SevInfo, Title: "a service inherits a connection value it does not read (a cache, a proxy, an asset build): no socket mount"},
	{ID: "UDS184", Severity: SevInfo, Title: "a connection value in a compose file this run does not load (an override such as compose.prod.yml) stays on TCP", Manual: true, LeavesTCP: true},
	{ID: "UDS185", Severity: SevWarning, Title: "--auth-local with a client or server that has no password", Manual: true},
	{ID: "UDS201", Severity: SevError, Title: "single-$ $FactoryArg interpolates to empty"},
	{ID: "UDS202", Severity: SevError, Title: "JDBC host other than localhost with junixsocket"},
	{ID: "UDS203", Severity: SevError, Title: "socketFactoryArg names a directory, not the socket file"},
	{ID: "UDS204", Severity: SevError, Title: "libpq host names the socket file, not its directory"},
	{ID: "UDS205", Severity: SevError, Title: "socket path not inside any mount of the client"},
	{ID: "UDS206", Severity: SevError, Title: "client volume is not a database's socket directory"},
	{ID: "UDS207", Severity: SevError, Title: "socket file port does not match the server port"},
	{ID: "UDS208", Severity: SevError, Title: "database socket directory mounted read-only"},
	{ID: "UDS209", Severity: SevWarning, Title: "host bind mount used for a database's socket directory"},
	{ID: "UDS210", Severity: SevError, Title: "two servers share one socket directory"},
	{ID: "UDS211", Severity: SevError, Title: "sslmode=require/ssl=true with pgjdbc over a socket"},
	{ID: "UDS212", Severity: SevError, Title: "socket file mounted instead of its directory"},
	{ID: "UDS213", Severity: SevError, Title: "retired: asyncpg URL with a host and ?host= (SQLAlchemy takes the query host; see docs/findings.md)"},
	{ID: "UDS214", Severity: SevError, Title: "two volumes mounted at one path in a service"},
	{ID: "UDS215", Severity: SevError, Title: "relative socket directory in a host value (read as a TCP host name)", CarriedAs: SevWarning},
	{ID: "UDS216", Severity: SevError, Title: "socket value keeps an sslmode some driver fails on"},
	{ID: "UDS220", Severity: SevWarning, Title: "a tmpfs and the socket volume on one directory of the server (/var/run is /run)"},
	{ID: "UDS221", Severity: SevError, Title: "socket path in a variable of a catalogued image that takes none", CarriedAs: SevWarning},
	{ID: "UDS222", Severity: SevWarning, Title: "a client mounts a socket volume that nothing it reads uses, and still connects over TCP"},
	{ID: "UDS223", Severity: SevWarning, Title: "a client mounts a database's socket volume read-write"},
	{ID: "UDS301", Severity: SevInfo, Title: "app server socket made connectable by nginx's worker (umask/chmod)"},
	{ID: "UDS302", Severity: SevWarning, Title: "nginx backend address built from a variable left on TCP"},
	{ID: "UDS303", Severity: SevWarning, Title: "app server config not reachable from the compose file; add the listener by hand", Manual: true},
	{ID: "UDS304", Severity: SevWarning, Title: "app server not recognised; nginx backend left on TCP", Manual: true},
	{ID: "UDS305", Severity: SevWarning, Title: "app server listener change affects its TCP listener"},
	{ID: "UDS306", Severity: SevWarning, Title: "nginx configuration file cannot be read"},
	{ID: "UDS307", Severity: SevWarning, Title: "Host header sent to the app becomes localhost"},
	{ID: "UDS308", Severity: SevWarning, Title: "app runs as a non-root user: socket directory must be writable by it", Manual: true},
	{ID: "UDS309", Severity: SevWarning, Title: "edited file is in the build context: rebuild the image", Manual: true},
	{ID: "UDS310", Severity: SevWarning, Title: "app reached on a second port left on TCP"},
	{ID: "UDS311", Severity: SevInfo, Title: "proxied service runs its image's own server, not an app server: nginx backend left on TCP"},
})

// withDocs fills each code's Doc from docs/findings.md.
func withDocs(cs []Code) []Code {
	for i := range cs {
		cs[i].Doc, _ = docs.Finding(cs[i].ID)
	}
	return cs
}

// Codes returns the registry of finding codes, sorted by ID.
func Codes() []Code { return slices.Clone(codes) }

// Lookup returns the registry entry of a code (any case), and whether it
// exists.
func Lookup(id string) (Code, bool) {
	i, ok := slices.BinarySearchFunc(codes, strings.ToUpper(id), func(c Code, id string) int { return strings.Compare(c.ID, id) })
	if !ok {
		return Code{}, false
	}
	return codes[i], true
}

// New is the one way a finding is made: code at a position, about
// a service's key, with the severity the registry gives the code. An
// unknown code panics: a programming error, which every golden would show.
func New(code string, at Pos, service, key, msg string) Finding {
	c, ok := Lookup(code)
	if !ok {
		panic("finding: code " + code + " is not in the registry (finding/codes.go)")
	}
	return Finding{Pos: at, Severity: c.Severity, Code: code, Service: service, Key: key, Message: msg}
}

// List is where a planner or a validator collects findings.
type List []Finding

// Add appends New(...) and returns it (to attach a Basis).
func (l *List) Add(code string, at Pos, service, key, msg string) *Finding {
	*l = append(*l, New(code, at, service, key, msg))
	return &(*l)[len(*l)-1]
}
