package dialect

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// PasswordGiven reports whether a value of dialect name carries a
// password: a URI's user info "user:password", a conninfo's password=.
// known is false for the dialects whose password may live elsewhere (a
// JDBC URL's user and password properties, a host variable), and for a
// value that does not parse.
func PasswordGiven(name, val string) (given, known bool) {
	switch name {
	case URI:
		u, err := libpq.ParseURI(val)
		if err != nil {
			return false, false
		}
		return strings.Contains(u.Userinfo, ":"), true
	case DSN:
		d, err := libpq.ParseDSN(val)
		if err != nil {
			return false, false
		}
		_, has := d.Get("password")
		return has, true
	}
	return false, false
}
