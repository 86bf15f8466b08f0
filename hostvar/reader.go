package hostvar

import (
	"fmt"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// Reader decides who reads the connection URI q.Var, and so the socket
// form to write there, in the order of issue #20: the user's word
// (--consumer), the project's own code and manifests (consumer.Decide),
// the image catalogue. When the value must stay on TCP, stay says why
// (UDS153: its reader takes no socket URI at the server's port; UDS154: no
// reader is known) and form is "".
func (q Query) Reader() (form consumer.Form, basis *finding.Basis, stay *Stay) {
	v := q.Var
	if f, b, s, found := q.userReader(); found {
		// The user's reader decides, also when it takes no socket form
		// (then the value stays).
		return f, b, s
	}
	verdict, found := consumer.Decide(q.Scopes.Of(v.Service), v.Key)
	verdict, found = consumer.Refine(verdict, found, v.Value, v.Pos.File, v.Pos.Line)
	if found {
		u := verdict.Uses[0]
		b := &finding.Basis{Kind: finding.BasisEvidence, Name: strings.Join(verdict.Readers(), "+"), At: finding.Pos{File: u.File, Line: u.Line},
			Detail: u.Reader.Reason}
		if verdict.Form == "" && len(u.Reader.Forms) > 0 {
			return "", nil, &Stay{Code: "UDS153", Basis: b,
				Msg: fmt.Sprintf("%s/%s reaches %s over TCP and its readers share no socket URI form (%s); left on TCP", v.Service, v.Key, q.DB, readersDetail(verdict))}
		}
		if verdict.Form == "" {
			msg := fmt.Sprintf("%s/%s reaches %s over TCP and is read by %s (%s:%d %s): %s; left on TCP", v.Service, v.Key, q.DB, u.Reader.Name, u.File, u.Line, u.How, u.Reader.Reason)
			if slices.Contains(u.Reader.ByHand, consumer.Encoded) {
				msg += fmt.Sprintf(": if the driver behind it decodes a percent-encoded host (libpq, tokio-postgres, sqlx do; lib/pq does not), write by hand %s and mount %s's socket volume on %s", q.encodedForm(), q.DB, v.Service)
			}
			return "", nil, &Stay{Code: "UDS153", Basis: b, Msg: msg}
		}
		if verdict.Form == consumer.Encoded {
			// The readers are known: no --consumer form to offer (each
			// breaks one of them), only the form to write by hand.
			return "", nil, &Stay{Code: "UDS153", Basis: b,
				Msg: fmt.Sprintf("%s/%s reaches %s over TCP and its readers share only the percent-encoded socket form, which the tool does not write (%s); left on TCP: to use the socket, write it by hand with the directory as the host, %s, and mount %s's socket volume on %s",
					v.Service, v.Key, q.DB, readersDetail(verdict), q.encodedForm(), q.DB, v.Service)}
		}
		form := consumer.ChooseAt(verdictReaders(verdict), q.DBPort)
		if form == "" || form == consumer.Encoded {
			r := portIgnored(verdict)
			return "", nil, &Stay{Code: "UDS153", Basis: b,
				Msg: fmt.Sprintf("%s/%s reaches %s over TCP and is read by %s (%s:%d %s), which takes ?host= but not ?port=: the empty form would open .s.PGSQL.5432, while %s listens on port %d, and not every reader takes the localhost form, whose authority holds the port; left on TCP", v.Service, v.Key, q.DB, r.Reader.Name, r.File, r.Line, r.How, q.DB, q.DBPort)}
		}
		verdict.Form = form
		b.Detail = readersDetail(verdict)
		return verdict.Form, b, nil
	}
	if e, cv := CatalogueVar(q.Project, v.Service, v.Key); cv != nil && cv.Role == catalog.RoleURL && cv.Directory {
		b := CatalogueBasis(e, cv.Reason)
		if cv.URIHost != "" {
			return consumer.Localhost, &b, nil
		}
		return consumer.Empty, &b, nil
	}
	why := "no code or manifest in the project shows its reader and its image is not catalogued"
	if e := catalog.Lookup(q.Project.Model.Services[v.Service].Image); e != nil {
		// Trial 19 (hasura's PG_DATABASE_URL): the image is catalogued,
		// only not this variable.
		why = fmt.Sprintf("no code or manifest in the project shows its reader and the catalogue entry of its image (%s) does not list %s", e.Family, v.Key)
	}
	return "", nil, q.unknownReader(why)
}

// encodedForm is the value in the percent-encoded socket form
// (libpq.WithEncodedHost), passwords masked, or a template when the value
// does not convert (a placeholder where the host stands).
func (q Query) encodedForm() string {
	v := q.Var
	d := dialect.Recognise(v.Value)
	if sock, _, err := d.ToSocket(v.Value, q.MountPath, q.DBPort); err == nil {
		if enc, err := libpq.WithEncodedHost(sock); err == nil && enc != sock {
			return dialect.Redact(d.Name, enc)
		}
	}
	return "postgres://USER:PASSWORD@" + strings.ReplaceAll(q.MountPath, "/", "%2F") + "/DB"
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

// userReader reads --consumer SERVICE/KEY=READER|FORM, or KEY=... for
// that key in every service; a SERVICE/KEY value wins over a KEY one.
// found reports that the user named the reader.
func (q Query) userReader() (form consumer.Form, basis *finding.Basis, stay *Stay, found bool) {
	v := q.Var
	for _, target := range []string{v.Service + "/" + v.Key, v.Key} {
		if f, b, s, ok := q.userReaderFor(target); ok {
			return f, b, s, true
		}
	}
	return "", nil, nil, false
}

// NamesReader reports whether --consumer (consumers, TARGET=READER|FORM)
// names the reader of a service's key, as SERVICE/KEY or KEY: the user's
// word then decides its form (Query.Reader), before the catalogue does.
func NamesReader(consumers []string, service, key string) bool {
	for _, c := range consumers {
		if target, _, _ := strings.Cut(c, "="); target == service+"/"+key || target == key {
			return true
		}
	}
	return false
}

// userReaderFor applies --consumer TARGET=READER|FORM for one target; a
// named reader is held to the limits evidence would hold it to (its
// forms, and where it reads the port).
func (q Query) userReaderFor(want string) (consumer.Form, *finding.Basis, *Stay, bool) {
	v := q.Var
	for _, c := range q.Consumers {
		target, name, _ := strings.Cut(c, "=")
		if target != want {
			continue
		}
		b := &finding.Basis{Kind: finding.BasisUser, Name: "--consumer", Detail: "the user named the reader (--consumer " + c + ")"}
		if f, ok := consumer.ParseForm(name); ok {
			return f, b, nil, true
		}
		r := consumer.ByName(name)
		b.Cite = r.Sources
		b.Detail += ": " + r.Reason
		if len(r.Forms) == 0 {
			return "", nil, &Stay{Code: "UDS153", Basis: b,
				Msg: fmt.Sprintf("%s/%s is read by %s (--consumer): %s; left on TCP", v.Service, v.Key, r.Name, r.Reason)}, true
		}
		f := consumer.ChooseAt([]*consumer.Reader{r}, q.DBPort)
		if f == "" || f == consumer.Encoded {
			return "", nil, &Stay{Code: "UDS153", Basis: b,
				Msg: fmt.Sprintf("%s/%s is read by %s (--consumer), which takes ?host= but not ?port=: the empty form would open .s.PGSQL.5432, while %s listens on port %d; left on TCP", v.Service, v.Key, r.Name, q.DB, q.DBPort)}, true
		}
		return f, b, nil, true
	}
	return "", nil, nil, false
}

// unknownReader keeps (UDS154) a URI whose reader is not established on
// TCP, with the exact socket value for each plausible form and the flag
// that applies it (passwords masked).
func (q Query) unknownReader(why string) *Stay {
	v := q.Var
	who := v.Service + "/" + v.Key
	var forms []string
	d := dialect.Recognise(v.Value) // a URI whose socket form depends on its reader (ByReader)
	if sock, _, err := d.ToSocket(v.Value, q.MountPath, q.DBPort); err == nil {
		forms = append(forms, fmt.Sprintf("libpq, psycopg, pgx, lib/pq, node-postgres, TypeORM 0.2.29+, asyncpg, SQLAlchemy, dj-database-url, django-environ, tokio-postgres: %s (--consumer %s=empty)", dialect.Redact(d.Name, sock), who))
		if lh, err := libpq.WithAuthorityHost(sock, "localhost"); err == nil {
			forms = append(forms, fmt.Sprintf("Prisma, pydantic, PHP parse_url (Doctrine, Laravel), knex, new URL(), Rails (ActiveRecord 7.0+; its URI parser refuses an empty host before Ruby 3.4), sqlx and other Rust code that parses it with the url crate: %s (--consumer %s=localhost)", dialect.Redact(d.Name, lh), who))
		}
		if sd, err := libpq.WithSocketDirParam(sock); err == nil && sd != sock {
			forms = append(forms, fmt.Sprintf("Ecto (ecto_sql 3.4+; Phoenix): %s (--consumer %s=ecto)", dialect.Redact(d.Name, sd), who))
		}
		if f, err := libpq.WithSocketFile(sock); err == nil {
			forms = append(forms, fmt.Sprintf("bun's pgdriver: %s (--consumer %s=bun-pgdriver)", dialect.Redact(d.Name, f), who))
		}
	}
	msg := fmt.Sprintf("%s reaches %s over TCP, but %s, so it is left unchanged: a socket URI its reader rejects stops the application", who, q.DB, why)
	if len(forms) > 0 {
		msg += ". If its reader is one of these, apply the form it takes: " + strings.Join(forms, "; ") + "; Tortoise, postgres.js, code that parses or appends to the URL, and code that prefixes it with \"jdbc:\" for pgjdbc ((str \"jdbc:\" uri), \"jdbc:\" + url) take none"
	}
	return &Stay{Code: "UDS154", Msg: msg}
}
