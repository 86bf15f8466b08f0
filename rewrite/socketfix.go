package rewrite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// repairSocketValues fixes what is certain in client values already in
// socket form (hand-made setups): a host that names the socket FILE becomes
// its directory (libpq: "Not a directory"), and an sslmode some driver
// fails on over a socket becomes disable (libpq.SocketSSLMode). Pooler
// services are included: their host variables take a directory too, but
// not in an image that takes no socket there at all (hostvar.RefusesSocket:
// bitnami/pgbouncer), where the directory would not start either. The
// services holding a libpq socket value are the step's result, for
// PGSSLMODE (sslClients).
func repairSocketValues(ps *pass) (any, error) {
	ssl := map[string]bool{}
	for _, c := range ps.top.Clients {
		for _, v := range ps.p.ServiceEnv(c.Name) {
			repairSocketValue(ps, ssl, v)
		}
	}
	return ssl, nil
}

func repairSocketValue(pl *pass, ssl map[string]bool, v compose.EnvVar) {
	m, err := interp.Mask(v.Raw)
	if err != nil {
		return
	}
	if _, _, refused := hostvar.RefusesSocket(pl.p.Project, v.Service, v.Key, m.Value); refused {
		return // no socket form works there: validate's UDS221, carried
	}
	out, dname, notes, socket := dialect.SocketRepair(v.Key, hostvar.IsHostKey(v.Key), m.Value)
	if socket && dname != "" {
		ssl[v.Service] = true
	}
	reason, basis := "a socket value every driver accepts", dialect.ReaderOf(dname)
	if fh, ok := pl.top.FileHosts[v.Pos.String()]; ok {
		// ?host= names the socket file: right or wrong by its reader.
		switch {
		case fh.Basis == nil:
			return // no reader known: UDS138 said so, the value stays
		case fh.TakesFile:
			// The file is right; only the sslmode its reader fails on
			// over a socket is repaired.
			fixed, err := libpq.WithSocketFile(m.Value)
			if err != nil {
				return
			}
			out, notes = fixed, nil
			reason = "the sslmode a reader that dials ?host= as the socket file takes over a socket"
		default:
			reason = "the socket directory in ?host=, which its reader takes"
		}
		basis = fh.Basis
	}
	if out == "" || out == m.Value || !pl.ed.SetValue(v, m, out) {
		return
	}
	for _, n := range notes {
		pl.rep.Add(n.Code, v.Pos, v.Service, v.Key, v.Service+"/"+v.Key+": "+n.Message)
	}
	pl.rep.Change(Change{Kind: "repair", Pos: v.Pos, Service: v.Service, Key: v.Key, Dialect: dname,
		Before: dialect.Redact(dname, v.Raw), After: dialect.Redact(dname, m.Unmask(out)), Reason: reason, Basis: basis})
}

// fixPGSSLMode applies the socket sslmode rule to PGSSLMODE, a connection
// setting like the URL parameter (libpq §34.15; node pg reads it too), in
// every service that reaches PostgreSQL through a libpq socket value
// (written before, or by this migration).
func fixPGSSLMode(pl *pass) (any, error) {
	ssl := resultOf[map[string]bool](pl, socketValuesStep)
	clients := resultOf[clientResult](pl, migrateStep)
	for _, name := range pl.p.ServiceOrder() {
		if !ssl[name] && !clients.sslClients[name] {
			continue
		}
		if pgssl, fails := pl.p.FailingPGSSLMode(name); fails {
			if tcp := pl.p.TCPValues(name, clients.migratedPos); pl.top.KeepPGSSLMode[name] || len(tcp) > 0 {
				warnKeptPGSSLMode(pl, clients, name, pgssl, tcp)
				continue
			}
		}
		for _, v := range pl.p.ServiceEnv(name) {
			if v.Key != "PGSSLMODE" {
				continue
			}
			m, err := interp.Mask(v.Raw)
			if err != nil {
				continue
			}
			fails, unknown := libpq.SSLModeFailsOnSocket(m.Value)
			if !fails || !pl.ed.SetValue(v, m, libpq.SocketSSLMode) {
				continue
			}
			from := "PGSSLMODE=" + v.Value
			if unknown {
				from = "PGSSLMODE (set from a variable, whose value no longer applies)"
			}
			pl.rep.Add(libpq.CodeSSLOnSocket, v.Pos, name, v.Key, name+"/PGSSLMODE: "+libpq.SocketSSLMessage(from, "PGSSLMODE="+libpq.SocketSSLMode))
			env := dialect.HostVar("PGHOST") // PGSSLMODE is libpq's environment, as PGHOST is
			pl.rep.Change(Change{Kind: "value", Pos: v.Pos, Service: name, Key: v.Key, Dialect: env.Name,
				Before: v.Value, After: libpq.SocketSSLMode, Reason: "TLS does not apply on a Unix socket", Basis: dialect.ReaderOf(env.Name)})
		}
	}
	return nil, nil
}

// warnKeptPGSSLMode explains a PGSSLMODE left as it is (UDS114): which
// values keep relying on it over TCP, and what the socket values got.
func warnKeptPGSSLMode(pl *pass, clients clientResult, name string, pgssl compose.EnvVar, tcp []compose.EnvVar) {
	var keys []string
	for _, v := range tcp {
		keys = append(keys, name+"/"+v.Key)
	}
	sort.Strings(keys)
	socketNote := "the socket values of " + name + " set sslmode=disable themselves, which wins over PGSSLMODE"
	if clients.pghostOnSocket[name] {
		socketNote += "; PGHOST on the socket has no sslmode of its own: libpq, pgx and psycopg ignore PGSSLMODE there, but node pg and sqlx fail with it (\"The server does not support SSL connections\"), so such a client needs a connection URL with sslmode=disable instead"
	}
	pl.rep.Add("UDS114", pgssl.Pos, name, pgssl.Key,
		fmt.Sprintf("%s/PGSSLMODE=%s is left as it is for the values that stay on TCP and rely on it for TLS (%s); %s", name, pgssl.Value, strings.Join(keys, ", "), socketNote))
}
