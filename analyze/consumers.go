package analyze

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// uriConsumer decides who reads the connection URI v, which reaches db,
// and so the socket form to write there, in the order of issue #20: the
// user's word (--consumer), the project's own code and manifests
// (consumer.Decide), the image catalogue. ok is false when the value must
// stay on TCP; a finding then says why (UDS153: its reader takes no
// socket URI; UDS154: no reader is known).
func (ur uriReaders) decide(v compose.EnvVar, db *DB) (form consumer.Form, basis *finding.Basis, ok bool) {
	cl := ur.cl
	if f, b, found := (uriReaders{cl}).user(v, db); found {
		// The user's reader decides, also when it takes no socket form
		// (UDS153 said so): then the value stays.
		return f, b, f != ""
	}
	verdict, found := consumer.Decide(cl.scopes.of(v.Service), v.Key)
	verdict, found = consumer.Refine(verdict, found, v.Value, v.Pos.File, v.Pos.Line)
	if found {
		u := verdict.Uses[0]
		b := &finding.Basis{Kind: finding.BasisEvidence, Name: strings.Join(verdict.Readers(), "+"), At: finding.Pos{File: u.File, Line: u.Line},
			Detail: u.Reader.Reason}
		if verdict.Form == "" && len(u.Reader.Forms) > 0 {
			cl.note("UDS153", v.Pos, v.Service, v.Key,
				fmt.Sprintf("%s/%s reaches %s over TCP and its readers share no socket URI form (%s); left on TCP", v.Service, v.Key, db.Name, readersDetail(verdict))).Basis = b
			return "", nil, false
		}
		if verdict.Form == "" {
			cl.note("UDS153", v.Pos, v.Service, v.Key,
				fmt.Sprintf("%s/%s reaches %s over TCP and is read by %s (%s:%d %s): %s; left on TCP", v.Service, v.Key, db.Name, u.Reader.Name, u.File, u.Line, u.How, u.Reader.Reason)).Basis = b
			return "", nil, false
		}
		if verdict.Form == consumer.Encoded {
			(uriReaders{cl}).unknown(v, db, "its readers ("+strings.Join(verdict.Readers(), ", ")+") share only the percent-encoded form, which the tool does not write")
			return "", nil, false
		}
		form := consumer.ChooseAt(verdictReaders(verdict), db.Port)
		if form == "" || form == consumer.Encoded {
			r := portIgnored(verdict)
			cl.note("UDS153", v.Pos, v.Service, v.Key,
				fmt.Sprintf("%s/%s reaches %s over TCP and is read by %s (%s:%d %s), which takes ?host= but not ?port=: the empty form would open .s.PGSQL.5432, while %s listens on port %d, and not every reader takes the localhost form, whose authority holds the port; left on TCP", v.Service, v.Key, db.Name, r.Reader.Name, r.File, r.Line, r.How, db.Name, db.Port)).Basis = b
			return "", nil, false
		}
		verdict.Form = form
		b.Detail = readersDetail(verdict)
		return verdict.Form, b, true
	}
	if e, cv := cl.p.catalogueVar(v.Service, v.Key); cv != nil && cv.Role == catalog.RoleURL && cv.Directory {
		b := catalogueBasis(e, cv.Reason)
		if cv.URIHost != "" {
			return consumer.Localhost, &b, true
		}
		return consumer.Empty, &b, true
	}
	(uriReaders{cl}).unknown(v, db, "no code or manifest in the project shows its reader and its image is not catalogued")
	return "", nil, false
}

// verdictReaders returns the readers of v's uses.
func verdictReaders(v consumer.Verdict) []*consumer.Reader {
	var rs []*consumer.Reader
	for _, u := range v.Uses {
		rs = append(rs, u.Reader)
	}
	return rs
}

// portIgnored returns the use of a reader of v that takes ?host= but not
// ?port= (Sequelize, Prisma), or nil.
func portIgnored(v consumer.Verdict) *consumer.Use {
	for i, u := range v.Uses {
		if u.Reader.PortIgnored {
			return &v.Uses[i]
		}
	}
	return nil
}

// readersDetail says which readers the evidence found and the form they
// share.
func readersDetail(v consumer.Verdict) string {
	var parts []string
	for _, u := range v.Uses {
		parts = append(parts, fmt.Sprintf("%s (%s:%d %s)", u.Reader.Name, u.File, u.Line, u.How))
	}
	if v.Form == "" {
		return "read by " + strings.Join(parts, ", ")
	}
	return fmt.Sprintf("read by %s, which take%s the %s socket form", strings.Join(parts, ", "), map[bool]string{true: "s", false: ""}[len(parts) == 1], v.Form)
}

// userConsumer reads --consumer SERVICE/KEY=READER|FORM, or KEY=... for
// that key in every service; a SERVICE/KEY value wins over a KEY one.
func (ur uriReaders) user(v compose.EnvVar, db *DB) (consumer.Form, *finding.Basis, bool) {
	cl := ur.cl
	for _, target := range []string{v.Service + "/" + v.Key, v.Key} {
		if f, b, ok := (uriReaders{cl}).userFor(v, db, target); ok {
			return f, b, ok
		}
	}
	return "", nil, false
}

// userFor applies --consumer TARGET=READER|FORM for one target; a
// named reader is held to the limits evidence would hold it to (its
// forms, and where it reads the port).
func (ur uriReaders) userFor(v compose.EnvVar, db *DB, want string) (consumer.Form, *finding.Basis, bool) {
	cl := ur.cl
	for _, c := range cl.opts.Consumers {
		target, name, _ := strings.Cut(c, "=")
		if target != want {
			continue
		}
		b := &finding.Basis{Kind: finding.BasisUser, Name: "--consumer", Detail: "the user named the reader (--consumer " + c + ")"}
		if f, ok := consumer.ParseForm(name); ok {
			return f, b, true
		}
		r := consumer.ByName(name)
		b.Cite = r.Sources
		b.Detail += ": " + r.Reason
		if len(r.Forms) == 0 {
			cl.note("UDS153", v.Pos, v.Service, v.Key,
				fmt.Sprintf("%s/%s is read by %s (--consumer): %s; left on TCP", v.Service, v.Key, r.Name, r.Reason)).Basis = b
			return "", nil, true
		}
		f := consumer.ChooseAt([]*consumer.Reader{r}, db.Port)
		if f == "" || f == consumer.Encoded {
			cl.note("UDS153", v.Pos, v.Service, v.Key,
				fmt.Sprintf("%s/%s is read by %s (--consumer), which takes ?host= but not ?port=: the empty form would open .s.PGSQL.5432, while %s listens on port %d; left on TCP", v.Service, v.Key, r.Name, db.Name, db.Port)).Basis = b
			return "", nil, true
		}
		return f, b, true
	}
	return "", nil, false
}

// unknownConsumer reports a URI left on TCP because its reader is not
// established, with the exact socket value for each plausible form and the
// flag that applies it (passwords masked).
func (ur uriReaders) unknown(v compose.EnvVar, db *DB, why string) {
	cl := ur.cl
	who := v.Service + "/" + v.Key
	var forms []string
	d := dialect.Recognise(v.Value) // a URI whose socket form depends on its reader (ByReader)
	if sock, _, err := d.ToSocket(v.Value, cl.opts.MountPath, db.Port); err == nil {
		forms = append(forms, fmt.Sprintf("libpq, psycopg, pgx, lib/pq, node-postgres, TypeORM 0.2.29+, asyncpg, SQLAlchemy, Rails, dj-database-url: %s (--consumer %s=empty)", dialect.Redact(d.Name, sock), who))
		if lh, err := libpq.WithAuthorityHost(sock, "localhost"); err == nil {
			forms = append(forms, fmt.Sprintf("Prisma, pydantic, PHP parse_url (Doctrine, Laravel), knex, new URL(): %s (--consumer %s=localhost)", dialect.Redact(d.Name, lh), who))
		}
	}
	msg := fmt.Sprintf("%s reaches %s over TCP, but %s, so it is left unchanged: a socket URI its reader rejects stops the application", who, db.Name, why)
	if len(forms) > 0 {
		msg += ". If its reader is one of these, apply the form it takes: " + strings.Join(forms, "; ") + "; Ecto, Tortoise, postgres.js and code that parses or appends to the URL take none"
	}
	cl.note("UDS154", v.Pos, v.Service, v.Key, msg)
}

// checkConsumers rejects --consumer values that name no service, no
// variable of that service, or no reader or form.
func (p *Project) checkConsumers(list []string, bad func(string, ...any) error) error {
	for _, c := range list {
		target, name, ok := strings.Cut(c, "=")
		if !ok || name == "" {
			return bad("--consumer %q: want SERVICE/KEY=READER or SERVICE/KEY=FORM (forms: empty, localhost; readers: %s)", c, readerNames())
		}
		if err := p.checkConsumerTarget(c, target, bad); err != nil {
			return err
		}
		if f, ok := consumer.ParseForm(name); ok && f != consumer.Encoded {
			continue
		}
		if consumer.ByName(name) == nil {
			return bad("--consumer %s: no reader or form %q (forms: empty, localhost; readers: %s)", c, name, readerNames())
		}
	}
	return nil
}

// checkConsumerTarget checks the SERVICE/KEY or KEY of a --consumer value
// c. A key with a dot names a value in a configuration file
// (database.url), known only once the files are read: only its service is
// checked.
func (p *Project) checkConsumerTarget(c, target string, bad func(string, ...any) error) error {
	service, key, ok := strings.Cut(target, "/")
	if !ok {
		if target == "" {
			return bad("--consumer %q: want SERVICE/KEY=READER, KEY=READER or a FORM instead of READER", c)
		}
		for name := range p.Model.Services {
			for _, v := range p.ServiceEnv(name) {
				if v.Key == target {
					return nil
				}
			}
		}
		if strings.Contains(target, ".") {
			return nil
		}
		return bad("--consumer %s: no service has an environment variable %s", c, target)
	}
	if strings.Contains(key, ".") {
		if _, ok := p.Model.Services[service]; !ok {
			return bad("--consumer %s: no such service (services: %s)", c, strings.Join(slices.Sorted(maps.Keys(p.Model.Services)), ", "))
		}
		return nil
	}
	return p.checkHostVars([]string{target}, func(format string, a ...any) error {
		return bad(strings.Replace(format, "--host-var", "--consumer", 1), a...)
	})
}

// checkConsumerNames checks only the syntax and the reader or form of
// each --consumer value (a run over several projects).
func (p *Project) checkConsumerNames(list []string, bad func(string, ...any) error) error {
	for _, c := range list {
		target, name, ok := strings.Cut(c, "=")
		if !ok || name == "" || target == "" {
			return bad("--consumer %q: want SERVICE/KEY=READER or SERVICE/KEY=FORM (forms: empty, localhost; readers: %s)", c, readerNames())
		}
		if f, ok := consumer.ParseForm(name); (!ok || f == consumer.Encoded) && consumer.ByName(name) == nil {
			return bad("--consumer %s: no reader or form %q (forms: empty, localhost; readers: %s)", c, name, readerNames())
		}
	}
	return nil
}

func readerNames() string {
	var names []string
	for _, r := range consumer.Readers() {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
