package analyze

import (
	"fmt"
	"path"
	"strconv"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// FileHost is what the sources of knowledge say about a connection URI
// already in socket form whose ?host= names the socket FILE
// (/DIR/.s.PGSQL.PORT) rather than its directory. libpq and the drivers
// modelled on it append the file name themselves and fail on it ("Not a
// directory"); bun's pgdriver dials ?host= as given and needs the file.
// So the text alone never says whether it is a mistake: its reader does.
type FileHost struct {
	// TakesFile: the reader dials ?host= as the socket file (consumer.File):
	// the value is right as written.
	TakesFile bool
	// Basis is the source that knows the reader (evidence, catalogue, the
	// user's --consumer); nil when none does: the value is left as
	// written, neither repaired nor called wrong.
	Basis *finding.Basis
	// File is the socket file ?host= names.
	File string
}

// fileHost decides about v when it is a socket-form URI (a dialect whose
// form depends on its reader) whose ?host= names the socket file; ok is
// false for any other value.
func (d decisions) fileHost(v compose.EnvVar, val string) (fh FileHost, ok bool) {
	dl := dialect.Recognise(val)
	if dl == nil || !dl.ByReader || dl.SocketDir == nil {
		return FileHost{}, false
	}
	file, found := dl.SocketDir(val)
	m := dialect.SocketFileRE.FindStringSubmatch(path.Base(file))
	if !found || m == nil || !path.IsAbs(file) {
		return FileHost{}, false
	}
	port, _ := strconv.Atoi(m[1])
	cl := d.cl
	v.Value = val
	q := hostvar.Query{Project: cl.p.Project, Scopes: cl.scopes, Var: v, DB: "PostgreSQL", DBPort: port,
		MountPath: cl.opts.MountPath, HostVars: cl.opts.HostVars, Consumers: cl.opts.Consumers}
	form, basis, stay := q.Reader()
	fh = FileHost{File: file}
	switch {
	case stay != nil:
		// no reader known, or readers that take no socket URI or share
		// no form: nothing certain to repair
	case form == consumer.File:
		fh.TakesFile, fh.Basis = true, basis
	case form == consumer.Empty || form == consumer.Localhost:
		fh.Basis = basis // a reader that takes ?host= as the directory
	}
	return fh, true
}

// noteFileHost warns (UDS138) about a socket-file ?host= whose reader no
// source of knowledge shows: it is left as written.
func (cl *collector) noteFileHost(v compose.EnvVar, fh FileHost) {
	who := v.Service + "/" + v.Key
	cl.note("UDS138", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s names the socket file %s in ?host=, and no code, manifest or catalogue entry shows its reader: libpq and the drivers modelled on it (psycopg, pgx, node-postgres, ...) take the directory there and fail on the file (\"Not a directory\"), bun's pgdriver dials ?host= as given and needs the file; left as written. If its reader takes a directory, set ?host=%s by hand, or rerun with --consumer %s=READER (libpq, pgx, bun-pgdriver, ...) and the tool repairs it or keeps it",
			who, fh.File, path.Dir(fh.File), who))
}

// FileHost answers fileHost for validate: what the sources of knowledge
// say about the socket-form URI val of v (interpolated).
func (r Reads) FileHost(v compose.EnvVar, val string) (FileHost, bool) {
	return (decisions{r.cl}).fileHost(v, val)
}
