// Package libpq parses, formats and rewrites libpq connection strings, as
// described in the PostgreSQL documentation, section "Connection Strings"
// (libpq chapter, §34.1.1 in PostgreSQL 17; keywords in §34.1.2):
//
//   - connection URIs: postgresql://[userinfo@][host[:port][,...]][/dbname][?k=v&...],
//     also with the scheme postgres:// and the SQLAlchemy spellings
//     postgresql+<driver>:// and postgres+<driver>:// (see ParseURI);
//   - keyword/value strings: "host=pg port=5432 dbname=app" (see ParseDSN).
//
// The package is pure: it never resolves names or touches the network.
// Parsers keep every byte as written, so ParseURI(s).String() == s and
// ParseDSN(s).String() == s for every accepted s, and the rewriters change
// only the parts they must.
//
// Strings reach this package from compose files in which every interpolation
// reference (${VAR}, ${VAR:-default}, $VAR) has been replaced by one opaque
// rune of the Unicode private-use area U+E000..U+F8FF. Such a rune is an
// ordinary character here: it may appear in a host, port, database, user,
// password or parameter, it is never escaped or dropped, and a port made of
// (or mixed with) placeholder runes is valid.
package libpq

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/uds-migrate/uds-migrate/internal/interp"
)

// Errors. Syntax errors wrap ErrSyntax; test with errors.Is. Error messages
// never quote a user name, password or parameter value.
var (
	// ErrNotPostgres: the string is not a PostgreSQL URI (wrong scheme) or,
	// for DSNToSocket, not a libpq keyword/value string (see IsDSN).
	ErrNotPostgres = errors.New("libpq: not a PostgreSQL connection string")
	// ErrSyntax: the string has a PostgreSQL scheme or keyword form but is
	// malformed.
	ErrSyntax = errors.New("libpq: malformed connection string")
	// ErrMultiHost: several hosts are listed. A Unix socket is a single
	// endpoint, it cannot fail over or balance between hosts.
	ErrMultiHost = errors.New("libpq: several hosts are listed; a Unix socket cannot fail over between hosts")
)

// DefaultPort is the PostgreSQL default port; the rewriters leave it
// implicit when nothing states another.
const DefaultPort = 5432

// Note codes.
const (
	// CodeSSLOnSocket: an sslmode some driver fails on over a Unix socket
	// was set to disable, or comes from a variable (see SocketSSLMode).
	CodeSSLOnSocket = "UDS104"
)

// Note is an informational finding of a rewriter, with a stable code.
type Note struct{ Code, Message string }

// Redacted replaces a password in Redact's output.
const Redacted = "****"

func syntaxErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrSyntax}, args...)...)
}

// interp.IsPlaceholder reports whether r stands for a compose interpolation
// reference.

func hasPlaceholder(s string) bool { return strings.IndexFunc(s, interp.IsPlaceholder) >= 0 }

func isSecretKey(k string) bool {
	return strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword") ||
		strings.EqualFold(k, "oauth_client_secret")
}

// checkPort accepts a non-empty string of ASCII digits and placeholder runes;
// an all-digit port must be in 1..65535 (libpq checks the same range).
func checkPort(p string) error {
	if msg := interp.PortProblem(p); msg != "" {
		return syntaxErr("%s", msg)
	}
	return nil
}

func checkPortNumber(port int) error {
	if port < 1 || port > 65535 {
		return fmt.Errorf("libpq: port %d outside 1..65535", port)
	}
	return nil
}

// checkSocketDir validates the socket directory given to a rewriter.
func checkSocketDir(dir string) error {
	if !strings.HasPrefix(dir, "/") {
		return fmt.Errorf("libpq: socket directory %q is not an absolute path", dir)
	}
	if strings.ContainsAny(dir, ",\x00") {
		return fmt.Errorf("libpq: socket directory %q contains ',' or NUL", dir)
	}
	return nil
}

// checkEscapes validates %-escapes like libpq's conninfo_uri_decode: '%'
// must be followed by two hex digits, and %00 is forbidden.
func checkEscapes(s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		b, ok, literal := interp.EscapeAt(s, i)
		if literal {
			continue
		}
		if !ok {
			return syntaxErr("invalid %%-escape")
		}
		if b == 0 {
			return syntaxErr("forbidden %%00")
		}
		i += 2
	}
	return nil
}

// decode percent-decodes like libpq (no '+' to space). Escapes involving a
// placeholder rune, and invalid ones, stay literal.
func decode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if v, ok, _ := interp.EscapeAt(s, i); ok {
				b.WriteByte(v)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// encode percent-encodes s for a URI query value or host: unreserved
// characters, '/', ':', '@', '!', '*', '\”, '(', ')' and placeholder runes
// stay as they are, everything else (including '%', '&', '=', '+', ';', '#',
// '$', spaces and other non-ASCII) becomes %XX.
func encode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if interp.IsPlaceholder(r) {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			strings.IndexByte("-._~/:@!*'()", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
		i++
	}
	return b.String()
}
