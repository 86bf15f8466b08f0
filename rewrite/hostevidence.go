package rewrite

import (
	"fmt"

	"github.com/uds-migrate/uds-migrate/evidence"
)

// DialectHostDir is an application's own host variable (POSTGRES_HOST,
// DB_HOST) that evidence shows reaching a libpq-family driver: it takes
// the socket directory, and its port variable keeps naming .s.PGSQL.<port>.
const DialectHostDir = "host-dir"

// Evidence is why the tool trusted a host variable: a knowledge source
// (evidence in the project, the user's flag, the image catalogue), the
// file and line it rests on, and the driver it implies.
type Evidence struct {
	Source string // "evidence"
	File   string // relative to the project directory
	Line   int
	Driver string
	Reason string
}

// hostVarEvidence turns a split host variable into an edge when the
// project's own code shows a libpq-family driver reading it. A host:port
// value is never a directory, so it gets no edge.
func (pl *planner) hostVarEvidence(v envVar, db *dbService, port string) *edge {
	if port != "" {
		return nil
	}
	verdict, ok := evidence.Find(pl.evidenceScope(v.service), v.key)
	if !ok || !verdict.Directory {
		return nil
	}
	return &edge{v: v, dialect: DialectHostDir, db: db, basis: &Evidence{Source: verdict.Source, File: verdict.File, Line: verdict.Line, Driver: verdict.Driver, Reason: verdict.Reason}}
}

// noteEvidence says, once the value is rewritten, which evidence the
// rewrite rests on (UDS132).
func (pl *planner) noteEvidence(e *edge, mp string) {
	if e.basis == nil || e.railsVar != "" {
		return // noteRailsDefault says it for an edited ERB default
	}
	b := e.basis
	pl.warnFile(e.v.file, e.v.line, e.v.col, "UDS132", e.v.service, e.v.key,
		fmt.Sprintf("%s/%s set to the socket directory %s on evidence: %s:%d: %s; %s takes an absolute directory as the socket directory, and the port (%d) names .s.PGSQL.%d",
			e.v.service, e.v.key, mp, b.File, b.Line, b.Reason, b.Driver, e.db.port, e.db.port))
}
