package libpq

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Host is one entry of a URI host list, as written (percent-encoding kept).
// An IPv6 address keeps its brackets in Name ("[::1]"). Port is "" when the
// entry has no ":port". Name may be empty in a list ("postgres://,h2/db") or
// before a port ("postgres://:5433/db"); libpq then uses its default, the
// Unix socket directory.
type Host struct{ Name, Port string }

// Param is one '&'-separated token of a URI query, as written: neither Key
// nor Value is percent-decoded. A token without '=' has Key set to the whole
// token and Value "". An empty token (as in a trailing '&') is a Param with an
// empty Key.
type Param struct {
	Key, Value string
	bare       bool // token had no '='
}

// String returns the token as written.
func (p Param) String() string {
	if p.bare {
		return p.Key
	}
	return p.Key + "=" + p.Value
}

// URI is a parsed connection URI. Every field holds text exactly as written
// (percent-encoding kept), so String() reproduces the input byte for byte.
//
// Shape: Scheme "://" [Userinfo "@"] Hosts [ "/" Path ] [ "?" Params ].
//
//	postgres://api:pw@db:5432/api?sslmode=disable
//	  Scheme="postgres" Userinfo="api:pw" HasUserinfo Hosts=[{db 5432}]
//	  Path="api" HasPath Params=[{sslmode disable}] HasQuery
//	postgresql:///reports?host=/var/run/postgresql
//	  Hosts=nil Path="reports" HasPath Params=[{host /var/run/postgresql}]
type URI struct {
	// Scheme as written: postgres, postgresql, or either with "+driver"
	// (any case).
	Scheme string
	// Userinfo is the text before the '@' ("user" or "user:password").
	Userinfo    string
	HasUserinfo bool
	// Hosts is the comma-separated host list; nil when the host part is
	// empty ("postgres:///db", "postgres://u@/db").
	Hosts []Host
	// Path is the database name as written, without the leading '/'.
	Path    string
	HasPath bool
	// Params are the query tokens in order.
	Params   []Param
	HasQuery bool
}

// splitScheme recognizes postgres://, postgresql://, postgres+drv:// and
// postgresql+drv:// (ASCII case-insensitive; drv is letters, digits, '_',
// '-' or '.').
func splitScheme(s string) (scheme, rest string, ok bool) {
	i := strings.Index(s, "://")
	if i <= 0 {
		return "", "", false
	}
	scheme = s[:i]
	base, driver, plus := strings.Cut(scheme, "+")
	if !strings.EqualFold(base, "postgres") && !strings.EqualFold(base, "postgresql") {
		return "", "", false
	}
	if plus {
		if driver == "" {
			return "", "", false
		}
		for i := 0; i < len(driver); i++ {
			c := driver[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
				return "", "", false
			}
		}
	}
	return scheme, s[i+3:], true
}

// IsURI reports whether s starts with a PostgreSQL URI scheme: postgres://,
// postgresql://, postgres+<driver>:// or postgresql+<driver>:// (SQLAlchemy
// style, such as postgresql+psycopg2:// or postgresql+asyncpg://), compared
// case-insensitively. It does not validate the rest; use ParseURI for that.
func IsURI(s string) bool {
	_, _, ok := splitScheme(s)
	return ok
}

// ParseURI parses a connection URI (PostgreSQL docs §34.1.1):
//
//	scheme://[userinfo@][host[:port][,host[:port]...]][/dbname][?k=v&...]
//
// As in libpq (and pgx, which copies libpq's parser), the userinfo ends at
// the first '@' that comes before any '/'; the host list ends at '/' or '?';
// an IPv6 address is written in brackets; a host may be empty or
// percent-encoded ("%2Fvar%2Frun%2Fpostgresql" is a socket directory).
//
// It returns ErrNotPostgres for another scheme, and an error wrapping
// ErrSyntax for: an invalid %-escape or %00 in any component, a '[' without
// ']', an empty "[]", text other than ":port" after ']', a stray '[' or ']',
// '/' or '?' inside brackets, an '@' in the host list (an unencoded '@' in
// the password), an empty or non-numeric port or one outside 1..65535, a NUL
// byte (libpq would cut the string there; pgx rejects it).
//
// The query is parsed leniently, since many drivers accept more than libpq
// does: a token without '=' (libpq: "missing key/value separator"), a value
// containing '=' and empty tokens are kept as written. Unknown keys are kept.
func ParseURI(s string) (*URI, error) {
	scheme, rest, ok := splitScheme(s)
	if !ok {
		return nil, ErrNotPostgres
	}
	if strings.IndexByte(s, 0) >= 0 {
		return nil, syntaxErr("NUL byte in connection string")
	}
	u := &URI{Scheme: scheme}
	if i := strings.IndexAny(rest, "@/"); i >= 0 && rest[i] == '@' {
		u.Userinfo, u.HasUserinfo = rest[:i], true
		rest = rest[i+1:]
		if err := checkEscapes(u.Userinfo); err != nil {
			return nil, syntaxErr("invalid %%-escape in the user name or password")
		}
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	hosts, err := parseURIHosts(rest[:end])
	if err != nil {
		return nil, err
	}
	u.Hosts = hosts
	rest = rest[end:]
	if strings.HasPrefix(rest, "/") {
		u.HasPath = true
		path, query, hasQuery := strings.Cut(rest[1:], "?")
		u.Path, rest = path, ""
		if hasQuery {
			rest = "?" + query
		}
		if err := checkEscapes(u.Path); err != nil {
			return nil, fmt.Errorf("%w in the database name", err)
		}
	}
	if strings.HasPrefix(rest, "?") {
		u.HasQuery = true
		params, err := parseURIQuery(rest[1:])
		if err != nil {
			return nil, err
		}
		u.Params = params
	}
	return u, nil
}

func parseURIHosts(text string) ([]Host, error) {
	if text == "" {
		return nil, nil
	}
	entries := strings.Split(text, ",")
	hosts := make([]Host, 0, len(entries))
	for _, e := range entries {
		h, err := parseURIHost(e)
		if err != nil {
			return nil, err
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

func parseURIHost(e string) (Host, error) {
	if strings.IndexByte(e, '@') >= 0 {
		// Checked first so that no message below can echo a password.
		return Host{}, syntaxErr("'@' in the host list (percent-encode '@' in a password as %%40)")
	}
	var h Host
	portPart, hasPort := "", false
	if strings.HasPrefix(e, "[") {
		end := strings.IndexByte(e, ']')
		if end < 0 {
			return Host{}, syntaxErr("'[' without matching ']' in host %q", e)
		}
		if end == 1 {
			return Host{}, syntaxErr("empty IPv6 address \"[]\"")
		}
		h.Name = e[:end+1]
		if strings.IndexByte(h.Name[1:], '[') >= 0 {
			return Host{}, syntaxErr("nested '[' in host %q", e)
		}
		after := e[end+1:]
		if after != "" {
			if after[0] != ':' {
				return Host{}, syntaxErr("unexpected text after ']' in host %q", e)
			}
			portPart, hasPort = after[1:], true
		}
	} else {
		if strings.ContainsAny(e, "[]") {
			return Host{}, syntaxErr("misplaced '[' or ']' in host %q (IPv6 addresses are written [addr]:port)", e)
		}
		h.Name = e
		if c := strings.IndexByte(e, ':'); c >= 0 {
			h.Name, portPart, hasPort = e[:c], e[c+1:], true
		}
	}
	if err := checkEscapes(h.Name); err != nil {
		return Host{}, fmt.Errorf("%w in a host name", err)
	}
	if hasPort {
		if err := checkPort(portPart); err != nil {
			return Host{}, err
		}
		h.Port = portPart
	}
	return h, nil
}

func parseURIQuery(q string) ([]Param, error) {
	if q == "" {
		return nil, nil
	}
	toks := strings.Split(q, "&")
	params := make([]Param, 0, len(toks))
	for _, t := range toks {
		k, v, ok := strings.Cut(t, "=")
		if err := checkEscapes(k); err != nil {
			return nil, fmt.Errorf("%w in a parameter name", err)
		}
		if !ok {
			params = append(params, Param{Key: t, bare: true})
			continue
		}
		if err := checkEscapes(v); err != nil {
			return nil, fmt.Errorf("%w in the value of parameter %q", err, k)
		}
		params = append(params, Param{Key: k, Value: v})
	}
	return params, nil
}

// String formats u. For a URI returned by ParseURI it is the parsed input,
// byte for byte.
func (u *URI) String() string {
	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteString("://")
	if u.HasUserinfo {
		b.WriteString(u.Userinfo)
		b.WriteByte('@')
	}
	for i, h := range u.Hosts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(h.Name)
		if h.Port != "" {
			b.WriteByte(':')
			b.WriteString(h.Port)
		}
	}
	if u.HasPath {
		b.WriteByte('/')
		b.WriteString(u.Path)
	}
	if u.HasQuery {
		b.WriteByte('?')
		for i, p := range u.Params {
			if i > 0 {
				b.WriteByte('&')
			}
			b.WriteString(p.String())
		}
	}
	return b.String()
}

// Param returns the percent-decoded value of the query parameter whose
// decoded name is key (case-sensitive, as libpq keywords are). When the key
// occurs more than once the last occurrence wins, as in libpq. A token
// without '=' has the value "". '+' is not a space (libpq semantics).
func (u *URI) Param(key string) (string, bool) {
	for i := len(u.Params) - 1; i >= 0; i-- {
		if p := u.Params[i]; decode(p.Key) == key {
			return decode(p.Value), true
		}
	}
	return "", false
}

// User returns the percent-decoded user name and password from the
// userinfo. hasPassword is true when the userinfo contains ':' (the password
// may still be empty).
func (u *URI) User() (user, password string, hasPassword bool) {
	if !u.HasUserinfo {
		return "", "", false
	}
	user, password, hasPassword = strings.Cut(u.Userinfo, ":")
	return decode(user), decode(password), hasPassword
}

// Database returns the percent-decoded database name ("" when absent).
func (u *URI) Database() string { return decode(u.Path) }

// SocketDir returns the Unix socket directory the URI already connects
// through: the last ?host= parameter when present (libpq lets query
// parameters override the URI's host part), otherwise the single host of the
// host list, percent-decoded; it counts when it is an absolute path or,
// as libpq 14+ reads it, an "@name" abstract-namespace socket (Linux). It
// returns false when the effective host is a TCP host, a list of hosts, a
// variable, or absent (libpq would then use its compiled-in default
// directory, which this package does not guess), and when a non-empty
// hostaddr parameter forces TCP. Behind an empty authority with no
// ?host=, Ecto's ?socket_dir= (WithSocketDirParam) names the directory.
func (u *URI) SocketDir() (string, bool) {
	if v, ok := u.Param("hostaddr"); ok && v != "" {
		return "", false
	}
	host, ok := u.Param("host")
	if dir, sd := u.Param("socket_dir"); !ok && sd && emptyAuthority(u.Hosts) {
		// Ecto's socket form (WithSocketDirParam): libpq rejects the
		// parameter, but the value is for Postgrex, which takes it.
		host, ok = dir, true
	}
	if !ok {
		if len(u.Hosts) != 1 {
			return "", false
		}
		host = decode(u.Hosts[0].Name)
	}
	if !isUnixSocketPath(host) || strings.IndexByte(host, ',') >= 0 {
		return "", false
	}
	return host, true
}

// isUnixSocketPath mirrors libpq's is_unixsock_path: a host that starts
// with '/' or '@' is a Unix socket.
func isUnixSocketPath(host string) bool {
	return strings.HasPrefix(host, "/") || strings.HasPrefix(host, "@")
}

// multiHost reports whether the URI names more than one host, counting a
// %2C in a host name and comma lists in host/hostaddr parameters (libpq
// splits them after decoding).
func (u *URI) multiHost() bool {
	if len(u.Hosts) > 1 {
		return true
	}
	if len(u.Hosts) == 1 && strings.IndexByte(decode(u.Hosts[0].Name), ',') >= 0 {
		return true
	}
	for _, p := range u.Params {
		switch decode(p.Key) {
		case "host", "hostaddr":
			if strings.IndexByte(decode(p.Value), ',') >= 0 {
				return true
			}
		}
	}
	return false
}

// URIToSocket rewrites a connection URI to connect through the Unix socket
// directory dir (for example "/var/run/postgresql") with server port port:
//
//		scheme://[userinfo@]/[dbname]?<existing params>&host=<dir>[&port=N]
//
//	  - the authority host(s) and port are removed, leaving an empty host
//	    ("postgres://api:pw@/api?...", "postgres:///db?..." without userinfo);
//	    user, password, database and every other parameter stay as written and
//	    in order;
//	  - the first existing host parameter gets the value dir in place (later
//	    ones are dropped); without one, host=<dir> is appended. dir is
//	    percent-encoded where needed ('/' stays as is);
//	  - hostaddr parameters are dropped (they would force TCP);
//	  - the first existing port parameter gets the value N in place (later ones
//	    dropped); without one, port=N is appended only when N != 5432;
//	  - '?' is added when there was no query; a trailing empty token is reused.
//
// TLS settings follow SocketSSLParams: an sslmode some driver fails on
// over a socket becomes sslmode=disable, with a Note of code UDS104. The
// result is idempotent: a URI already in this form for dir and port is
// returned unchanged.
//
// Errors: ErrNotPostgres, ErrSyntax (from ParseURI), ErrMultiHost when several
// hosts are listed (in the host part or a host/hostaddr parameter), and a
// plain error for a dir that is not an absolute path or a port outside
// 1..65535.
func URIToSocket(s, dir string, port int) (string, []Note, error) {
	if err := checkSocketDir(dir); err != nil {
		return "", nil, err
	}
	if err := checkPortNumber(port); err != nil {
		return "", nil, err
	}
	u, err := ParseURI(s)
	if err != nil {
		return "", nil, err
	}
	if u.multiHost() {
		return "", nil, ErrMultiHost
	}
	var notes []Note
	u.Params, notes = SocketSSLParams(u.Params)
	portText := strconv.Itoa(port)

	v := *u
	v.Hosts = nil
	params := make([]Param, 0, len(u.Params)+2)
	hostDone, portDone := false, false
	for _, p := range u.Params {
		switch decode(p.Key) {
		case "host":
			if hostDone {
				continue
			}
			hostDone = true
			if p.bare || decode(p.Value) != dir {
				p = Param{Key: p.Key, Value: encode(dir)}
			}
		case "hostaddr":
			continue
		case "port":
			if portDone {
				continue
			}
			portDone = true
			if p.bare || decode(p.Value) != portText {
				p = Param{Key: p.Key, Value: portText}
			}
		}
		params = append(params, p)
	}
	if !hostDone || (!portDone && port != DefaultPort) {
		if n := len(params); n > 0 && params[n-1].bare && params[n-1].Key == "" {
			params = params[:n-1] // reuse a trailing '&'
		}
	}
	if !hostDone {
		params = append(params, Param{Key: "host", Value: encode(dir)})
	}
	if !portDone && port != DefaultPort {
		params = append(params, Param{Key: "port", Value: portText})
	}
	v.Params = params
	v.HasQuery = true
	return v.String(), notes, nil
}

// URIFromSocket is the inverse of URIToSocket, for reverting a migration: it
// drops the host, hostaddr, port and socket_dir (Ecto's form) parameters and writes host (an IPv6
// address may be given with or without brackets) and, when port > 0, ":port"
// in the URI's host part. Everything else stays as written; the '?' goes when
// no parameter is left.
//
// Errors: those of ParseURI, ErrMultiHost, and a plain error for an empty or
// invalid host or a port outside 0..65535.
func URIFromSocket(s, host string, port int) (string, error) {
	h, err := hostEntry(host, port)
	if err != nil {
		return "", err
	}
	u, err := ParseURI(s)
	if err != nil {
		return "", err
	}
	if u.multiHost() {
		return "", ErrMultiHost
	}
	v := *u
	v.Hosts = []Host{h}
	params := make([]Param, 0, len(u.Params))
	for _, p := range u.Params {
		switch decode(p.Key) {
		case "host", "hostaddr", "port", "socket_dir":
			continue
		}
		params = append(params, p)
	}
	if len(params) == 0 && len(u.Params) > 0 {
		v.HasQuery = false
	}
	v.Params = params
	return v.String(), nil
}

func hostEntry(host string, port int) (Host, error) {
	if host == "" || strings.ContainsAny(host, ",/?@&#") {
		return Host{}, invalidHost(host)
	}
	if strings.IndexByte(host, ':') >= 0 && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	h, err := parseURIHost(host)
	if err != nil || h.Port != "" {
		return Host{}, invalidHost(host)
	}
	if port != 0 {
		if err := checkPortNumber(port); err != nil {
			return Host{}, err
		}
		h.Port = strconv.Itoa(port)
	}
	return h, nil
}

func invalidHost(host string) error {
	return fmt.Errorf("libpq: invalid host %q", host)
}

// WithAuthorityHost returns a socket-form URI (URIToSocket's result) with
// host written in its empty authority: "postgresql://u:pw@/db?host=/dir"
// becomes "postgresql://u:pw@localhost/db?host=/dir". Consumers that check
// the URL with WHATWG new URL() (Prisma, Umami) reject the empty host
// ("Invalid URL"); libpq, pgx and node-postgres take the ?host= parameter
// over the authority host, so the socket is still used (e2e
// TestAuthorityHostSocket). A ?port= parameter moves into the authority
// ("@localhost:5433/db?host=/dir"): the readers that need a host there
// take the port from the authority only (Prisma: quaint's port() is
// url.port().unwrap_or(5432), and its query parser has no port; Sequelize
// 6: the URL's port), and every reader of this form takes it there too
// (e2e TestURIReaders, the localhost form at a server's own port). A URI
// without a socket ?host= parameter, or with a host already written, is
// returned unchanged.
//
// Errors: those of ParseURI, and a plain error for a host that is not a
// plain name (a socket path, a list, a port).
func WithAuthorityHost(s, host string) (string, error) {
	if host == "" || isUnixSocketPath(host) || strings.ContainsAny(host, ",:/@?#[]") {
		return "", fmt.Errorf("authority host %q: want a plain host name", host)
	}
	u, err := ParseURI(s)
	if err != nil {
		return "", err
	}
	if dir, ok := u.Param("host"); !ok || !isUnixSocketPath(dir) || !emptyAuthority(u.Hosts) {
		return s, nil
	}
	h := Host{Name: host}
	if port, ok := u.Param("port"); ok {
		if n, err := strconv.Atoi(port); err == nil && checkPortNumber(n) == nil {
			h.Port = strconv.Itoa(n)
			u.Params = slices.DeleteFunc(u.Params, func(p Param) bool { return decode(p.Key) == "port" })
		}
	}
	u.Hosts = []Host{h}
	return u.String(), nil
}

func emptyAuthority(hosts []Host) bool {
	return len(hosts) == 0 || (len(hosts) == 1 && hosts[0] == Host{})
}

// WithSocketFile returns a socket-form URI (URIToSocket's result) in the
// file form, for a reader that dials ?host= as given (bun's pgdriver,
// driver/pgdriver/config.go parseDSN): "postgres://u:pw@/db?host=/dir&port=5433"
// becomes "postgres://u:pw@/db?host=/dir/.s.PGSQL.5433&sslmode=disable".
// The port moves into the socket file's name (such a reader does not read
// ?port=; pgdriver would send it to the server as a run-time parameter),
// and sslmode becomes disable: pgdriver asks for TLS unless sslmode is
// disable, and a socket session refuses it. A URI without a socket
// ?host= parameter is returned unchanged.
//
// Errors: those of ParseURI.
func WithSocketFile(s string) (string, error) {
	u, err := ParseURI(s)
	if err != nil {
		return "", err
	}
	dir, ok := u.Param("host")
	if !ok || !isUnixSocketPath(dir) {
		return s, nil
	}
	port := DefaultPort
	if p, ok := u.Param("port"); ok {
		if n, err := strconv.Atoi(p); err == nil && checkPortNumber(n) == nil {
			port = n
		}
	}
	file := path.Join(dir, ".s.PGSQL."+strconv.Itoa(port))
	if strings.HasPrefix(path.Base(dir), ".s.PGSQL.") {
		file = dir // already the file, which names the port
	}
	var params []Param
	hasMode := false
	for _, p := range u.Params {
		switch decode(p.Key) {
		case "port":
			continue
		case "host":
			p = Param{Key: p.Key, Value: encode(file)}
		case "sslmode":
			hasMode = true
			if decode(p.Value) != SocketSSLMode {
				p = Param{Key: p.Key, Value: SocketSSLMode}
			}
		}
		params = append(params, p)
	}
	if !hasMode {
		params = append(params, Param{Key: "sslmode", Value: SocketSSLMode})
	}
	u.Params = params
	return u.String(), nil
}

// WithSocketDirParam returns a socket-form URI (URIToSocket's result) in
// Ecto's form: "postgres://u:pw@/db?host=/dir" becomes
// "postgres://u:pw@/db?socket_dir=/dir". Ecto's parse_url makes every
// query parameter it does not know a repo option, and Postgrex's
// :socket_dir is the socket directory (lib/ecto/repo/supervisor.ex,
// lib/postgrex/protocol.ex endpoints). A URI without a socket ?host=
// parameter, or with a ?port= (a string there, not the integer Postgrex
// takes; the caller writes this form for port 5432 only), is returned
// unchanged.
//
// Errors: those of ParseURI.
func WithSocketDirParam(s string) (string, error) {
	u, err := ParseURI(s)
	if err != nil {
		return "", err
	}
	dir, ok := u.Param("host")
	if _, port := u.Param("port"); !ok || !isUnixSocketPath(dir) || port {
		return s, nil
	}
	for i, p := range u.Params {
		if decode(p.Key) == "host" {
			u.Params[i] = Param{Key: "socket_dir", Value: p.Value}
		}
	}
	return u.String(), nil
}

// WithEncodedHost returns a socket-form URI (URIToSocket's result) with
// the socket directory percent-encoded as the authority host:
// "postgresql://u:pw@/db?host=/dir&port=5433" becomes
// "postgresql://u:pw@%2Fdir:5433/db". It is the one form that survives
// code which replaces the whole query (Rust's Url::set_query, as Lemmy
// calls it) for a driver that decodes the host and takes a leading / as
// a directory (libpq, tokio-postgres, sqlx). The tool prints it for a
// user to write by hand and does not write it itself: readers differ on
// decoding the host (lib/pq refuses it, pgx decodes it only from v5.11).
// A URI without a socket ?host= parameter is returned unchanged.
//
// Errors: those of ParseURI.
func WithEncodedHost(s string) (string, error) {
	u, err := ParseURI(s)
	if err != nil {
		return "", err
	}
	dir, ok := u.Param("host")
	if !ok || !isUnixSocketPath(dir) || !emptyAuthority(u.Hosts) {
		return s, nil
	}
	h := Host{Name: strings.ReplaceAll(encode(dir), "/", "%2F")}
	var params []Param
	for _, p := range u.Params {
		switch decode(p.Key) {
		case "host":
			continue
		case "port":
			if n, err := strconv.Atoi(decode(p.Value)); err == nil && checkPortNumber(n) == nil {
				h.Port = strconv.Itoa(n)
				continue
			}
		}
		params = append(params, p)
	}
	u.Hosts, u.Params = []Host{h}, params
	u.HasQuery = len(params) > 0
	return u.String(), nil
}
