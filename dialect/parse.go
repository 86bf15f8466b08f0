package dialect

import (
	"regexp"

	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/jdbc"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// Malformed returns the parse error of a connection value that is broken
// as written. A value that parses once its ${VAR} references are held opaque
// is not reported: only the variables' values at hand break it, and those
// may differ where the project runs.
func Malformed(raw, value string) error {
	err := parseConn(value)
	if err == nil {
		return nil
	}
	if m, merr := interp.Mask(raw); merr != nil || parseConn(m.Value) == nil {
		return nil
	}
	return err
}

// parseConn parses s as the dialect its shape names (a URL prefix, a libpq
// keyword DSN, an Npgsql/PDO string naming a host); nil when it parses or
// has no such shape.
func parseConn(s string) error {
	var err error
	switch {
	case jdbc.IsJDBC(s):
		_, err = jdbc.Parse(s)
	case libpq.IsURI(s):
		_, err = libpq.ParseURI(s)
	case dsnLikeRE.MatchString(s):
		_, err = libpq.ParseDSN(s)
	default:
		err = npgsqlSyntax(s)
	}
	return err
}

// dsnLikeRE matches text meant as a libpq keyword DSN: it starts with a
// keyword=value pair and names a host or database. libpq rejects an
// unbalanced quote in one (`host='db`: "unterminated quoted string in
// connection info string"), and so does the tool's parser.
var dsnLikeRE = regexp.MustCompile(`^\s*(?:host|hostaddr|port|dbname|user|password|sslmode|connect_timeout|application_name|options)\s*=.*(?:^|\s)(?:host|hostaddr|dbname)\s*=|^\s*(?:host|hostaddr|dbname)\s*=`)
