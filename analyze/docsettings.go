package analyze

import (
	"fmt"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/configfile"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// A host setting in a configuration document (db.host: postgres in ente's
// inline credentials.yaml, database.host in a YAML block of a variable) is
// no connection string: the program builds its connection from it. It is
// migrated the way a host variable is, on evidence in the project that the
// program hands that setting to a driver that takes a socket directory as
// host (evidence.FindSetting: viper's GetString("db.host") as the host of a
// lib/pq keyword DSN); without that evidence UDS182 names it.

// hostSetting returns the edge of host setting cv in document v (whose
// settings are vals), or nil when it stays: not a host setting of a
// database, a socket directory already (noted for the second run and
// revert), no evidence (UDS182), or what the evidence needs is not there
// (an exact place to edit, the server's port).
func (d envDocs) hostSetting(v compose.EnvVar, cv configfile.Value, vals []configfile.Value) *Edge {
	cl := d.cl
	prefix, last := "", cv.Key
	if i := strings.LastIndexByte(cv.Key, '.'); i >= 0 {
		prefix, last = cv.Key[:i+1], cv.Key[i+1:]
	}
	if !hostvar.IsAppHostKey(last) && !strings.EqualFold(last, "host") {
		return nil
	}
	at, exact := envDocValueAt(v, cv)
	val := strings.TrimSpace(cv.Value)
	if strings.HasPrefix(val, "/") {
		d.sawHostSocket(v, cv, at, exact)
		return nil
	}
	db := d.firstDB(v, []string{val})
	if db == nil {
		return nil
	}
	verdict, ok := evidence.FindSetting(cl.scopes.Of(v.Service), cv.Key)
	if !ok {
		d.warnHost(v, cv)
		return nil
	}
	who := fmt.Sprintf("%s (line %d of %s) in %s", cv.Key, cv.Line, d.its(v), d.name(v))
	if !exact {
		cl.note("UDS182", docPos(v, at), v.Service, v.Key,
			fmt.Sprintf("%s names %s, and %s:%d hands it to %s (%s), which takes a socket directory as host; but it is written where the tool cannot edit it exactly (a folded scalar, an escape, a ${...} reference): set it to %s by hand and mount %s's socket volume on %s",
				who, db.Name, verdict.File, verdict.Line, verdict.Driver, verdict.Reason, cl.opts.MountPath, db.Name, v.Service))
		return nil
	}
	// The driver opens .s.PGSQL.<port> with the port the program passes:
	// the setting beside the host (db.port), which must name the server's.
	port := 0
	for _, o := range vals {
		if strings.EqualFold(o.Key, prefix+"port") {
			port, _ = atoiPort(strings.TrimSpace(o.Value))
		}
	}
	if port != db.Port && !(port == 0 && db.Port == 5432) {
		cl.note("UDS120", docPos(v, at), v.Service, v.Key,
			fmt.Sprintf("%s names %s, which listens on port %d, and %s does not say %d: the driver would open the socket file of another port, so the setting is left on TCP; set %shost to %s and %sport to %d together by hand",
				who, db.Name, db.Port, prefix+"port", db.Port, prefix, cl.opts.MountPath, prefix, db.Port))
		return nil
	}
	at.Key = v.Key
	ev := compose.EnvVar{Service: v.Service, Key: v.Key, Raw: cv.Value, Value: cv.Value, Pos: docPos(v, at), Src: v.Src}
	return &Edge{Var: ev, Dialect: dialect.AppHostVar(false).Name, DB: db, Port: db.Port,
		InFile: &ConfigValue{Path: v.Src.Path, Data: v.Src.Data, Value: at, Src: v.Src, DocKey: fmt.Sprintf("%s (line %d of %s)", cv.Key, cv.Line, d.its(v))},
		Basis:  hostvar.EvidenceBasis(verdict.File, verdict.Line, verdict.Driver, verdict.Reason)}
}
