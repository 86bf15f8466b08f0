package analyze

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// A service's PGSSLMODE applies to every libpq-style value it has, not only
// to the one moved to the socket. When some of them stay on TCP (a remote
// database, a value left with a warning), lowering PGSSLMODE would turn
// their TLS off. libpq, pgx and psycopg ignore sslmode on a socket anyway;
// node pg and sqlx fail with require/verify-* there (FACTS.md), and a
// value's own sslmode wins over PGSSLMODE in all of them, so the migrated
// value gets sslmode=disable and PGSSLMODE stays (UDS114).

// TCPValues lists the connection values of service that stay on TCP:
// values that name a network host and are not among migrated (posKey of
// the values the migration rewrites), and PGHOST/PGHOSTADDR naming one.
func (p *Project) TCPValues(service string, migrated map[string]bool) []compose.EnvVar {
	var out []compose.EnvVar
	for _, v := range p.ServiceEnv(service) {
		if migrated[v.Pos.String()] || v.Value == "" {
			continue
		}
		if v.Key == "PGHOST" || v.Key == "PGHOSTADDR" {
			if !strings.HasPrefix(v.Value, "/") && !strings.HasPrefix(v.Value, "@") {
				out = append(out, v)
			}
			continue
		}
		if hosts, dname, socket := dialect.Classify(v.Value); dname != "" && !socket && len(hosts) > 0 {
			out = append(out, v)
		}
	}
	return out
}

// notePGHOSTShadows records, on each PGHOST edge, the service's other
// connection values that name a host and stay on TCP (edges are the
// values the migration is about to rewrite): PGHOST is libpq's default
// host, used only by a connection that names none, so the plan must not
// say the service now reaches the socket through it (Plane's api, whose
// DATABASE_URL names plane-db).
func notePGHOSTShadows(p *Project, edges []*Edge) {
	migrated := map[string]bool{}
	for _, e := range edges {
		if e.InFile == nil {
			migrated[e.Var.Pos.String()] = true
		}
	}
	for _, e := range edges {
		if e.InFile != nil || e.Var.Key != "PGHOST" {
			continue
		}
		for _, v := range p.TCPValues(e.Var.Service, migrated) {
			if v.Key != "PGHOST" && v.Key != "PGHOSTADDR" {
				e.HostGiven = append(e.HostGiven, v.Service+"/"+v.Key)
			}
		}
	}
}

// FailingPGSSLMode returns service's PGSSLMODE when some driver fails with
// it over a socket.
func (p *Project) FailingPGSSLMode(service string) (compose.EnvVar, bool) {
	for _, v := range p.ServiceEnv(service) {
		if v.Key != "PGSSLMODE" {
			continue
		}
		m, err := interp.Mask(v.Raw)
		if err != nil {
			return v, false
		}
		fails, _ := libpq.SSLModeFailsOnSocket(m.Value)
		return v, fails
	}
	return compose.EnvVar{}, false
}

// keepPGSSLMode lists the services whose failing PGSSLMODE must stay
// because a value of theirs stays on TCP; edges are the values the
// migration is about to rewrite.
func keepPGSSLMode(p *Project, edges []*Edge) map[string]bool {
	keep := map[string]bool{}
	migrated := map[string]bool{}
	for _, e := range edges {
		if e.InFile == nil {
			migrated[e.Var.Pos.String()] = true
		}
	}
	for _, name := range p.ServiceOrder() {
		if _, fails := p.FailingPGSSLMode(name); fails && len(p.TCPValues(name, migrated)) > 0 {
			keep[name] = true
		}
	}
	return keep
}
