package analyze

import (
	"fmt"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/finding"
)

// hostVarEvidence turns a split host variable into an edge when the
// project's own code shows a libpq-family driver reading it. A host:port
// value is never a directory, so it gets no edge. handled reports that the
// variable needs no further warning: an edge, or a finding of its own
// (evidence found, but the port would name the wrong socket file).
func (cl *collector) hostVarEvidence(v compose.EnvVar, db *DB, port string) (e *Edge, handled bool) {
	if port != "" {
		return nil, false
	}
	if (socketUses{cl}).tcpHost(v, db) {
		return nil, true
	}
	verdict, ok := evidence.Find(cl.scopes.of(v.Service), v.Key)
	if !ok || !verdict.Directory {
		return nil, false // a use that takes no directory: tcpHost reported it
	}
	if db.Port != 5432 {
		// The driver opens .s.PGSQL.<port> with the port the app passes:
		// the default 5432 unless the sibling port variable says otherwise.
		portKey := portSibling(v.Key)
		if p, _ := atoiPort(cl.p.clientEnv(v.Service, portKey)); p != db.Port {
			cl.note("UDS120", v.Pos, v.Service, v.Key,
				fmt.Sprintf("%s/%s reaches %s (evidence: %s:%d), but %s listens on port %d and %s/%s does not say %d: the driver would open .s.PGSQL.5432 or the port it is given, so the value is left on TCP; set %s=%d and %s=%s together by hand",
					v.Service, v.Key, verdict.Driver, verdict.File, verdict.Line, db.Name, db.Port, v.Service, portKey, db.Port, portKey, db.Port, v.Key, cl.opts.MountPath))
			return nil, true
		}
	}
	return &Edge{Var: v, Dialect: dialect.AppHostVar(false).Name, DB: db, Port: db.Port, Basis: evidenceBasis(verdict.File, verdict.Line, verdict.Driver, verdict.Reason)}, true
}

// portSibling names the port variable that goes with a host variable:
// DB_HOST → DB_PORT, GITEA__database__HOST → GITEA__database__PORT.
func portSibling(key string) string {
	i := strings.LastIndex(strings.ToUpper(key), "HOST")
	if i < 0 {
		return key + "_PORT"
	}
	port := "PORT"
	if key[i:i+4] == "host" {
		port = "port"
	}
	return key[:i] + port + key[i+4:]
}

// evidenceBasis is the basis of a host variable trusted on evidence in
// the project: the file and line, the driver it implies, and why.
func evidenceBasis(file string, line int, driver, reason string) *finding.Basis {
	return &finding.Basis{Kind: finding.BasisEvidence, Name: driver, At: finding.Pos{File: file, Line: line}, Detail: reason}
}
