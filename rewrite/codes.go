package rewrite

import "sort"

// codeTitles is the catalogue of finding codes; README documents each with
// cause and fix. Codes are stable: never reuse one for another meaning.
var codeTitles = map[string]string{
	"UDS101": "Java client needs junixsocket on its classpath",
	"UDS102": "local socket connections are trusted by the official image",
	"UDS103": "sslmode/ssl removed from a JDBC URL (fails over a socket)",
	"UDS104": "sslmode set to disable in a socket value (TLS does not apply on a socket; some drivers fail when asked for it)",
	"UDS105": "single-$ $FactoryArg repaired",
	"UDS106": "host bind mount used for the socket directory",
	"UDS107": "read-only socket directory made writable",
	"UDS108": "tmpfs on the socket directory replaced by the socket volume",
	"UDS120": "connection split into variables: a host variable the tool cannot rewrite safely",
	"UDS121": "client reaches a connection pooler, left on TCP",
	"UDS122": "URL-shaped value for a database in a form the tool does not know",
	"UDS109": "Bitnami image: the socket volume is mounted over /tmp",
	"UDS123": "Rails before 7.0 ignores ?host= in DATABASE_URL",
	"UDS124": "R2DBC over a socket needs netty's native epoll transport",
	"UDS125": "--auth-local applies to a new data directory only",
	"UDS126": "service placed on several hosts (Swarm): a socket reaches one host only",
	"UDS127": "connection string inside command:/entrypoint: left unchanged",
	"UDS128": "client names a port the compose file does not show the server listening on",
	"UDS213": "asyncpg URL with a host and ?host= (asyncpg stays on TCP)",
	"UDS214": "two volumes mounted at one path in a service",
	"UDS129": "an existing JDBC socketFactory was replaced by junixsocket's",
	"UDS130": "--jdbc-factory sysprop: one socket file per JVM",
	"UDS131": "client depends on a database but shows no connection value",
	"UDS160": "a shared env file value is also used where the socket is not mounted; left on TCP",
	"UDS161": "the server creates no Unix socket (empty unix_socket_directories); left on TCP",
	"UDS162": "a client uses a socket in a bind-mounted host directory no project service serves (a foreign server); left as it is",
	"UDS163": "a connection value that does not parse; left unchanged, the rest migrated",
	"UDS164": "a ${VAR} that stood for the host or port is gone from the socket form",
	"UDS165": "a connection value names a service not recognised as PostgreSQL; use --db SERVICE",
	"UDS170": "host variable set to the socket directory on evidence in the project",
	"UDS171": "Rails database.yml ERB default edited: every service without the variable gets it",
	"UDS110": "multi-host URL left on TCP (a socket cannot fail over)",
	"UDS111": "value or mapping the tool cannot edit exactly",
	"UDS140": "extra_hosts maps a database's name elsewhere: left on TCP",
	"UDS141": "a name reaches two servers on the networks a client shares with them: left on TCP",
	"UDS142": "network_mode host/service:/container: changes what names mean: left on TCP",
	"UDS143": "connection string in a ${VAR:-default} default rewritten: a set VAR overrides it",
	"UDS132": "socket directories leave out /var/run/postgresql: the official image's first-start init fails",
	"UDS133": "PGHOST/PGHOSTADDR set on the database service breaks init scripts",
	"UDS134": "host named the socket file: set to its directory",
	"UDS150": "host variable set to the socket directory: the image catalogue says the image takes one there",
	"UDS151": "host variable of a catalogued image that does not take a socket directory: left on TCP",
	"UDS152": "host variable set to the socket directory on the user's word (--host-var)",
	"UDS201": "single-$ $FactoryArg interpolates to empty",
	"UDS202": "JDBC host other than localhost with junixsocket",
	"UDS203": "socketFactoryArg names a directory, not the socket file",
	"UDS204": "libpq host names the socket file, not its directory",
	"UDS205": "socket path not inside any mount of the client",
	"UDS206": "client volume is not a database's socket directory",
	"UDS207": "socket file port does not match the server port",
	"UDS208": "database socket directory mounted read-only",
	"UDS209": "host bind mount used for the socket directory",
	"UDS210": "two servers share one socket directory",
	"UDS211": "sslmode=require/ssl=true with pgjdbc over a socket",
	"UDS212": "socket file mounted instead of its directory",
	"UDS215": "relative socket directory in a host value (read as a TCP host name)",
	"UDS216": "socket value keeps an sslmode some driver fails on",
	"UDS301": "app server socket made connectable by nginx's worker (umask/chmod)",
	"UDS302": "nginx backend address built from a variable left on TCP",
	"UDS303": "app server config not reachable from the compose file; add the listener by hand",
	"UDS304": "app server not recognised; nginx backend left on TCP",
	"UDS305": "app server listener change affects its TCP listener",
	"UDS306": "nginx configuration file cannot be read",
	"UDS307": "Host header sent to the app becomes localhost",
	"UDS308": "app runs as a non-root user: socket directory must be writable by it",
	"UDS309": "edited file is in the build context: rebuild the image",
	"UDS310": "app reached on a second port left on TCP",
}

// CodeTitle returns the one-line description of a finding code.
func CodeTitle(code string) string {
	if t, ok := codeTitles[code]; ok {
		return t
	}
	return code
}

// Codes lists every finding code, sorted (for the documentation check and
// `uds-migrate explain`).
func Codes() []string {
	out := make([]string, 0, len(codeTitles))
	for c := range codeTitles {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}
