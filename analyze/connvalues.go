package analyze

import (
	"fmt"
	"strings"

	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/jdbc"
	"github.com/uds-migrate/uds-migrate/libpq"
	"github.com/uds-migrate/uds-migrate/pgserver"
)

// checkConnValues finds environment values that start like a PostgreSQL
// URL (jdbc:postgresql:, postgres://, postgresql://) but do not parse: an
// invalid %-escape, a '[' without ']', a port out of range, an unencoded
// '@' in the password. The tool cannot tell which server such a value
// names, so it is skipped with a warning (UDS163) instead of in silence,
// and the rest of the project is migrated. Every service is checked (a
// run that leaves some out by Only/Exclude reports only the others', see
// BadConnFindings). Messages never hold the value itself (it may carry a
// password).
func (p *Project) checkConnValues() map[string]finding.Finding {
	out := map[string]finding.Finding{}
	for _, name := range p.ServiceOrder() {
		for _, v := range p.ServiceEnv(name) {
			err := dialect.Malformed(v.Raw, v.Value)
			if h, e := dialect.UnkeyedNpgsql(v.Value); err == nil && e != nil && p.pgService(h) {
				err = e // Host=db;Databse=app names the server: a typo to fix
			}
			if err != nil {
				out[v.Pos.String()] = finding.New("UDS163", v.Pos, name, v.Key, malformedMsg(name+"/"+v.Key, v.Value, err))
			}
		}
	}
	return out
}

// malformedMsg explains why a value does not parse. An unencoded '@' in a
// URI's password is read differently by each driver: Go's net/url (pgx,
// lib/pq) splits user info at the last '@' and connects; libpq (psql,
// psycopg) splits at the first and fails with `could not translate host
// name "<rest>@db"` (psql 15, checked); pgjdbc has no user info at all.
func malformedMsg(what, value string, err error) string {
	switch {
	case libpq.IsURI(value) && atsBeforeQuery(value) > 1:
		return fmt.Sprintf("%s has an unencoded '@' in its user info: pgx and Go's net/url split it at the last '@' and connect, libpq (psql, psycopg) splits at the first and fails, so the server it names is unclear: left unchanged; percent-encode '@' in the password as %%40 and rerun", what)
	case jdbc.IsJDBC(value) && atsBeforeQuery(value) > 0:
		return fmt.Sprintf("%s writes USER:PASSWORD@ before the host, a syntax pgjdbc does not have: left unchanged; move them to ?user=...&password=... and rerun", what)
	}
	return fmt.Sprintf("%s is not a valid connection string (%s): left unchanged; fix it and rerun", what, dialect.RedactErr(err))
}

// atsBeforeQuery counts the '@' of a URL before its query: more than one
// means an '@' inside the user info.
func atsBeforeQuery(value string) int {
	_, rest, _ := strings.Cut(value, "://")
	rest, _, _ = strings.Cut(rest, "?")
	return strings.Count(rest, "@")
}

// pgService reports whether host is the name of a service whose image is a
// PostgreSQL server or pooler the tool knows.
func (p *Project) pgService(host string) bool {
	svc, ok := p.Model.Services[strings.ToLower(strings.TrimSpace(host))]
	if !ok {
		return false
	}
	_, server := pgserver.FamilyOf(svc.Image)
	return server || pgserver.IsPooler(svc.Image)
}
