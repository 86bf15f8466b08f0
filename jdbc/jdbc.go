// Package jdbc parses, formats and rewrites PostgreSQL JDBC URLs as read by
// pgjdbc (org.postgresql.Driver.parseURL). The grammar follows
// https://jdbc.postgresql.org/documentation/use/ ("Connecting to the Database"):
//
//	jdbc:postgresql:database
//	jdbc:postgresql:/
//	jdbc:postgresql://host/database
//	jdbc:postgresql://host/
//	jdbc:postgresql://host:port/database
//	jdbc:postgresql://[::1]:5740/accounting
//	jdbc:postgresql://host1:5432,host2:5433/database
//
// each optionally followed by ?key=value&key2=value2.
//
// The package is pure: it never resolves names or touches the network.
// Parsing keeps every byte as written (no re-encoding), so
// Parse(s).String() == s for every accepted s, and the rewriters change only
// the parts they must.
//
// Strings reach this package from compose files in which every interpolation
// reference (${VAR}, ${VAR:-default}, $VAR) has been replaced by one opaque
// rune of the Unicode private-use area U+E000..U+F8FF. Such a rune is an
// ordinary character here: it may appear in a host, port, database or
// parameter, it is never escaped or dropped, and a port made of (or mixed
// with) placeholder runes is valid.
package jdbc

import (
	"errors"
	"fmt"
	"strings"

	"github.com/uds-migrate/uds-migrate/internal/interp"
)

// Prefix is the case-sensitive prefix pgjdbc requires.
const Prefix = "jdbc:postgresql:"

// Socket factories of junixsocket (all since junixsocket 2.1.2).
const (
	// FactoryArg reads the socket file from the socketFactoryArg parameter.
	// It is the factory ToSocket writes. The '$' is literal: a caller that
	// writes it into a compose file must escape it as "$$".
	FactoryArg = "org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg"
	// FactoryURIScheme reads a URL-encoded file:// URI from the host part.
	FactoryURIScheme = "org.newsclub.net.unix.AFUNIXSocketFactory$URIScheme"
	// FactorySystemProperty reads the path from the
	// org.newsclub.net.unix.socket.default system property.
	FactorySystemProperty = "org.newsclub.net.unix.AFUNIXSocketFactory$SystemProperty"
)

// Errors returned by Parse and the rewriters. Syntax errors wrap ErrSyntax;
// test with errors.Is. Error messages never contain parameter values, so they
// cannot leak a password.
var (
	// ErrNotPostgres: the string does not start with "jdbc:postgresql:".
	ErrNotPostgres = errors.New("jdbc: not a jdbc:postgresql: URL")
	// ErrSyntax: the URL starts with the prefix but pgjdbc would not accept it.
	ErrSyntax = errors.New("jdbc: malformed URL")
	// ErrMultiHost: the URL lists several hosts. A Unix socket is a single
	// endpoint, it cannot fail over or balance between hosts.
	ErrMultiHost = errors.New("jdbc: URL lists several hosts; a Unix socket cannot fail over between hosts")
)

// Host is one entry of the host list, as written. An IPv6 address keeps its
// brackets in Name ("[::1]"). Port is "" when the entry has no ":port".
type Host struct{ Name, Port string }

// Param is one '&'-separated token of the query, as written: neither Key nor
// Value is percent-decoded. A token without '=' (pgjdbc reads "?ssl" as
// ssl="") has Key set to the whole token and Value "". An empty token (as in
// "a=1&&b=2" or a trailing '&') is a Param with an empty Key.
type Param struct {
	Key, Value string
	bare       bool // token had no '='
}

// URL is a parsed JDBC URL. Every field holds text exactly as written, so
// String() reproduces the input byte for byte.
//
// Shapes:
//
//	jdbc:postgresql:db            HasAuthority=false, HasSlash=false, Database="db"
//	jdbc:postgresql:/             HasAuthority=false, HasSlash=true,  Database=""
//	jdbc:postgresql://h:1/db      HasAuthority=true,  Hosts=[{h 1}], HasSlash=true, Database="db"
//	jdbc:postgresql://h/          HasAuthority=true,  Hosts=[{h ""}], HasSlash=true, Database=""
//	jdbc:postgresql://            HasAuthority=true,  Hosts=nil, HasSlash=false (all defaults)
//	jdbc:postgresql:///db         HasAuthority=true,  Hosts=nil, HasSlash=true, Database="db"
type URL struct {
	// Hosts is the comma-separated host list of the "//" form; nil when the
	// URL has no authority or an empty one (pgjdbc then uses localhost).
	Hosts []Host
	// HasAuthority is true for the "jdbc:postgresql://..." form.
	HasAuthority bool
	// HasSlash is true when a '/' introduces Database.
	HasSlash bool
	// Database is the database name as written (percent-encoded as written,
	// "" for the default). See DatabaseName for the decoded name.
	Database string
	// Params are the query tokens in order.
	Params []Param
	// HasQuery is true when the URL contains '?' (even with nothing after it).
	HasQuery bool
}

// Note is an informational finding of a rewriter, with a stable code.
type Note struct{ Code, Message string }

// IsJDBC reports whether s has the pgjdbc prefix "jdbc:postgresql:"
// (case-sensitive, as pgjdbc checks it). It does not validate the rest; use
// Parse for that.
func IsJDBC(s string) bool { return strings.HasPrefix(s, Prefix) }

func syntaxErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrSyntax}, args...)...)
}

// interp.IsPlaceholder reports whether r stands for a compose interpolation
// reference.

func hasPlaceholder(s string) bool {
	return strings.IndexFunc(s, interp.IsPlaceholder) >= 0
}

// Parse parses a pgjdbc URL.
//
// It returns ErrNotPostgres when s lacks the "jdbc:postgresql:" prefix and an
// error wrapping ErrSyntax when pgjdbc would reject the URL or the URL cannot
// be understood: a host list without the '/' that ends it, more than one '/'
// after the host list, "jdbc:postgresql:/x", an empty entry in the host list,
// an empty host before ":port", an unbracketed ':' in a host, a bad '[' ']'
// bracket, '@' in a host (pgjdbc has no user:password@ syntax), an empty or
// non-numeric port or one outside 1..65535, or an invalid %-escape in the
// database or a parameter value. A '%' followed by a placeholder rune is
// accepted as written, since the variable may supply the hex digits.
//
// Text after the first '?' is the query, split on '&' like pgjdbc does.
func Parse(s string) (*URL, error) {
	if !IsJDBC(s) {
		return nil, ErrNotPostgres
	}
	rest := s[len(Prefix):]
	u := &URL{}
	server, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery {
		u.HasQuery = true
		params, err := parseQuery(query)
		if err != nil {
			return nil, err
		}
		u.Params = params
	}
	switch {
	case strings.HasPrefix(server, "//"):
		u.HasAuthority = true
		server = server[2:]
		slash := strings.IndexByte(server, '/')
		hostText := server
		if slash < 0 {
			if server != "" {
				return nil, syntaxErr("no '/' after the host list (pgjdbc: \"JDBC URL must contain a / at the end of the host or port\")")
			}
		} else {
			hostText = server[:slash]
			u.HasSlash = true
			u.Database = server[slash+1:]
			if strings.IndexByte(u.Database, '/') >= 0 {
				return nil, syntaxErr("too many '/' characters (pgjdbc: \"JDBC URL contains too many / characters\")")
			}
		}
		hosts, err := parseHosts(hostText)
		if err != nil {
			return nil, err
		}
		u.Hosts = hosts
	case strings.HasPrefix(server, "/"):
		if server != "/" {
			return nil, syntaxErr("a database name cannot follow \"jdbc:postgresql:/\"; write jdbc:postgresql:db or jdbc:postgresql://host/db")
		}
		u.HasSlash = true
	default:
		u.Database = server
	}
	if err := checkEscapes(u.Database); err != nil {
		return nil, fmt.Errorf("%w in the database name", err)
	}
	return u, nil
}

func parseHosts(text string) ([]Host, error) {
	if text == "" {
		return nil, nil
	}
	entries := strings.Split(text, ",")
	hosts := make([]Host, 0, len(entries))
	for _, e := range entries {
		h, err := parseHost(e)
		if err != nil {
			return nil, err
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

func parseHost(e string) (Host, error) {
	if e == "" {
		return Host{}, syntaxErr("empty entry in the host list")
	}
	if strings.IndexByte(e, '@') >= 0 {
		// Checked first so that no message below can echo a password.
		return Host{}, syntaxErr("'@' in the host: pgjdbc has no USER:PASSWORD@ syntax, use ?user=...&password=...")
	}
	var h Host
	portPart, hasPort := "", false
	if e[0] == '[' {
		end := strings.IndexByte(e, ']')
		if end < 0 {
			return Host{}, syntaxErr("'[' without matching ']' in host %q", e)
		}
		h.Name = e[:end+1]
		if end == 1 {
			return Host{}, syntaxErr("empty IPv6 address \"[]\"")
		}
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
		if c := strings.LastIndexByte(e, ':'); c >= 0 {
			h.Name, portPart, hasPort = e[:c], e[c+1:], true
			if h.Name == "" {
				return Host{}, syntaxErr("empty host before port %q", portPart)
			}
			if strings.IndexByte(h.Name, ':') >= 0 {
				return Host{}, syntaxErr("':' in host %q (IPv6 addresses are written [addr]:port)", h.Name)
			}
		}
	}
	if hasPort {
		if err := checkPort(portPart); err != nil {
			return Host{}, err
		}
		h.Port = portPart
	}
	return h, nil
}

// checkPort accepts a non-empty string of ASCII digits and placeholder runes;
// an all-digit port must be in 1..65535 (pgjdbc checks the same range).
func checkPort(p string) error {
	if msg := interp.PortProblem(p); msg != "" {
		return syntaxErr("%s", msg)
	}
	return nil
}

func parseQuery(q string) ([]Param, error) {
	if q == "" {
		return nil, nil
	}
	toks := strings.Split(q, "&")
	params := make([]Param, 0, len(toks))
	for _, t := range toks {
		k, v, ok := strings.Cut(t, "=")
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

func checkEscapes(s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		_, ok, literal := interp.EscapeAt(s, i)
		if literal {
			continue
		}
		if !ok {
			return syntaxErr("invalid %%-escape")
		}
		i += 2
	}
	return nil
}

// decode decodes like java.net.URLDecoder, which pgjdbc uses: %XX escapes
// and '+' as a space. Escapes that involve a placeholder rune stay literal.
// Invalid escapes (rejected by Parse) are kept literally.
func decode(s string) string {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b.WriteByte(' ')
		case '%':
			if v, ok, _ := interp.EscapeAt(s, i); ok {
				b.WriteByte(v)
				i += 2
			} else {
				b.WriteByte('%')
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// String formats u. For a URL returned by Parse it is the parsed input, byte
// for byte.
func (u *URL) String() string {
	var b strings.Builder
	b.WriteString(Prefix)
	if u.HasAuthority {
		b.WriteString("//")
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
	}
	if u.HasSlash {
		b.WriteByte('/')
	}
	b.WriteString(u.Database)
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

// String returns the token as written: "key=value", or "key" for a token
// that had no '='.
func (p Param) String() string {
	if p.bare {
		return p.Key
	}
	return p.Key + "=" + p.Value
}

// DatabaseName returns the percent-decoded database name ("" for the
// default, which pgjdbc takes from the user name).
func (u *URL) DatabaseName() string { return decode(u.Database) }

// Param returns the decoded value of the parameter named key (compared
// case-sensitively, as pgjdbc property names are). When the key occurs more
// than once the last occurrence wins, as in pgjdbc. A token without '=' has
// the value "". Decoding follows java.net.URLDecoder: %XX and '+' as space.
func (u *URL) Param(key string) (string, bool) {
	for i := len(u.Params) - 1; i >= 0; i-- {
		if p := u.Params[i]; p.Key == key {
			return decode(p.Value), true
		}
	}
	return "", false
}

// IsUnixSocket reports whether the URL connects through a junixsocket
// factory: its socketFactory parameter (decoded, so %24 counts as '$') names
// AFUNIXSocketFactory$FactoryArg, $URIScheme or $SystemProperty.
func (u *URL) IsUnixSocket() bool {
	v, _ := u.Param("socketFactory")
	switch v {
	case FactoryArg, FactoryURIScheme, FactorySystemProperty:
		return true
	}
	return false
}
