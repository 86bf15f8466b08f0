package rewrite

import (
	"fmt"

	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/jdbc"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// checkConnValues refuses an environment value that starts like a
// PostgreSQL URL (jdbc:postgresql:, postgres://, postgresql://) but does not
// parse: an invalid %-escape, a '[' without ']', a port out of range. The
// driver would refuse it too, and the tool cannot tell which server it
// names, so it would otherwise be skipped in silence. Services left out by
// Only/Exclude are not checked. The error is a *PosError at the value; its
// message never holds the value itself (it may carry a password).
func (p *project) checkConnValues(opts Options) error {
	for _, name := range p.serviceOrder() {
		if (len(opts.Only) > 0 && !contains(opts.Only, name)) || contains(opts.Exclude, name) {
			continue
		}
		for _, v := range p.serviceEnv(name) {
			if err := malformedConn(v.raw, v.value); err != nil {
				return &PosError{File: v.file, Line: v.line, Col: v.col,
					Msg: fmt.Sprintf("%s/%s is not a valid connection string (%s); the driver would refuse it too", name, v.key, redactErr(err))}
			}
		}
	}
	return nil
}

// malformedConn returns the parse error of a connection value that is broken
// as written. A value that parses once its ${VAR} references are held opaque
// is not reported: only the variables' values at hand break it, and those
// may differ where the project runs.
func malformedConn(raw, value string) error {
	err := parseConn(value)
	if err == nil {
		return nil
	}
	if m, merr := interp.Mask(raw); merr != nil || parseConn(m.Value) == nil {
		return nil
	}
	return err
}

// parseConn parses s as the URL dialect its prefix names; nil when it
// parses or has no such prefix.
func parseConn(s string) error {
	var err error
	switch {
	case jdbc.IsJDBC(s):
		_, err = jdbc.Parse(s)
	case libpq.IsURI(s):
		_, err = libpq.ParseURI(s)
	}
	return err
}
