package rewrite

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/proxy"
	"github.com/uds-migrate/uds-migrate/validate"
)

// Migrate plans and applies the migration of a compose project (one or more
// -f files, in order) and verifies the result: the output loads with
// compose-go and a second migration of it changes nothing. It returns a
// *PosError (file:line:col) for input it cannot read as a compose project.
func Migrate(ctx context.Context, inputs []Input, opts Options) (res *Result, err error) {
	defer func() { err = validate.ScrubErr(err, compose.InputSecrets(inputs)) }()
	res, err = migrateOnce(ctx, inputs, opts)
	if err != nil {
		return res, err
	}
	// One load of the output serves both checks: it must pass `validate`
	// (never print a socket setup that cannot work), and migrating it again
	// must change nothing.
	out, opts2, err := analyze.Reload(ctx, inputs, res, opts)
	if err != nil {
		return nil, fmt.Errorf("internal error: the migrated output does not load: %w", err)
	}
	var bad []Finding
	carried := false
	for _, f := range validate.Loaded(out, opts2) {
		switch {
		case f.Severity == SevError && carriedAs(f.Code) != "":
			carried = true
		case f.Severity == SevError:
			bad = append(bad, f)
		}
	}
	if carried && len(bad) == 0 {
		res.Findings = append(res.Findings, carriedFindings(ctx, inputs, opts)...)
		analyze.SortFindings(out.Sources, res.Findings)
	}
	if len(bad) > 0 {
		// Say whether the input already had these problems: then it is the
		// input to fix (or a value shared with an excluded service).
		ve := &validate.Error{Findings: bad}
		if before, err := validate.Validate(ctx, inputs, opts); err == nil {
			var inInput []Finding
			for _, f := range before {
				if f.Severity == SevError {
					inInput = append(inInput, f)
				}
			}
			if len(inInput) > 0 {
				// Positions in the input as read: the output's lines do
				// not exist in any file the user has.
				ve.Findings, ve.InInput = inInput, true
			}
		}
		return nil, ve
	}
	if !res.Changed() {
		return res, nil
	}
	res2, err := migrateLoaded(out, opts2)
	if err != nil {
		return nil, fmt.Errorf("internal error: the migrated output does not load: %w", err)
	}
	if res2.Changed() {
		for i, f := range res2.Files {
			if f.Changed {
				return nil, fmt.Errorf("internal error: a second migration would change %s again (%s); please report this with the input file",
					f.Path, firstDiffLine(res.Files[i].After, f.After))
			}
		}
	}
	if combos := checkCombinations(ctx, inputs, res, opts, out.ExtSources); len(combos) > 0 {
		res.Findings = append(res.Findings, combos...)
		analyze.SortFindings(out.Sources, res.Findings)
	}
	return res, nil
}

func migrateOnce(ctx context.Context, inputs []Input, opts Options) (*Result, error) {
	if opts.MountPath == "" {
		opts.MountPath = DefaultOptions().MountPath
	}
	p, err := analyze.Load(ctx, inputs, opts)
	if err != nil {
		return nil, err
	}
	return migrateLoaded(p, opts)
}

// migrateLoaded plans and applies the migration of a loaded project.
func migrateLoaded(p *analyze.Project, opts Options) (*Result, error) {
	if opts.MountPath == "" {
		opts.MountPath = DefaultOptions().MountPath
	}
	a, err := analyze.Analyze(p, opts)
	if err != nil {
		return nil, err
	}
	ps, err := plan(p, opts, a)
	if err != nil {
		return nil, err
	}
	res, err := analyze.NewResult(p, a.DBs, ps.ed, ps.rep, resultOf[dbPlans](ps, databasesStep).volume)
	if err != nil {
		return nil, err
	}
	if !res.Changed() {
		res.NothingReason = nothingReason(ps)
	}
	return res, nil
}

// nothingReason explains an empty migration from the analysis: the
// clients the selection left out, no database, or the values left on TCP.
func nothingReason(pl *pass) string {
	a := pl.top
	if len(a.Unselected) > 0 {
		return fmt.Sprintf("the selection (--only/--exclude) left no client to migrate; without it, %s would be", strings.Join(a.Unselected, ", "))
	}
	if len(a.DBs) == 0 {
		proxies := "no reverse proxy reaches an app server over TCP"
		if len(resultOf[proxy.Result](pl, proxyStep).OnTCP) > 0 {
			proxies = "the reverse proxy's addresses stay on TCP (see the warnings above)"
		}
		found := "no PostgreSQL service found"
		if noSocketServer(pl.p) {
			// a catalogued server whose socket the tool leaves alone
			// (UDS165) is found, only not set up
			found = "no PostgreSQL service whose socket the tool sets up found"
		}
		return found + " (server images of the catalogue: " + catalog.ServerImages() + "; name others with --db SERVICE), and " + proxies + externalHint(pl.p)
	}
	var names []string
	for _, db := range a.DBs {
		names = append(names, db.Name)
	}
	// A value left on TCP with a warning (a variable nothing vouches
	// for, a shared env value, a pooler, a value that does not parse) is a
	// connection, not none: the summary must not contradict the warnings.
	// A client whose connection is out of view (UDS131 at its depends_on)
	// is counted apart: it is no value.
	left, ties := a.LeftOnTCP(pl.p.Sources, false), a.OutOfView(pl.p.Sources)
	hidden := ""
	if len(ties) > 0 {
		hidden = fmt.Sprintf("%d client whose connection the tool cannot see is", len(ties))
		if len(ties) > 1 {
			hidden = fmt.Sprintf("%d clients whose connections the tool cannot see are", len(ties))
		}
		hidden += " left on TCP (" + strings.Join(ties, ", ") + ")"
	}
	switch {
	case len(left) > 0:
		what := "1 connection value is"
		if len(left) > 1 {
			what = fmt.Sprintf("%d connection values are", len(left))
		}
		if hidden != "" {
			hidden = ", and " + hidden
		}
		return fmt.Sprintf("%s left on TCP (%s)%s: see the warnings above", what, strings.Join(left, ", "), hidden)
	case hidden != "":
		return fmt.Sprintf("no connection value the tool reads reaches %s over TCP, but %s: see the warnings above", strings.Join(names, ", "), hidden)
	}
	return fmt.Sprintf("no service connects to %s over TCP (values already in socket form are left as they are)", strings.Join(names, ", "))
}

// externalHint names connection values that point at hosts outside the
// project: those cannot move to a socket.
// dbKeyRE matches a host variable's name that says it is a database's.
var dbKeyRE = regexp.MustCompile(`(?i)(^|_)(DB|DATABASE|POSTGRES|POSTGRESQL|PG|PSQL|SQL)|^PGHOST$|DB_?HOST`)

// noSocketServer reports whether a service runs a catalogued PostgreSQL
// server whose socket the tool does not set up (its entry's no:).
func noSocketServer(p *analyze.Project) bool {
	for _, svc := range p.Model.Services {
		if e := catalog.LookupServer(svc.Image); e != nil && e.Server.No != "" {
			return true
		}
	}
	return false
}

func externalHint(p *analyze.Project) string {
	var hits []string
	for _, name := range p.ServiceOrder() {
		for _, v := range p.ServiceEnv(name) {
			if hosts, dname, socket := dialect.Classify(v.Value); dname != "" && !socket && len(hosts) > 0 {
				where := "outside this project"
				for _, h := range hosts {
					if svc, ok := p.Model.Services[h]; ok {
						where = fmt.Sprintf("the service %s, whose image is not a PostgreSQL image the tool knows: name it with --db %s (and --socket-dir when its socket is not in /var/run/postgresql)", h, h)
						if e := catalog.LookupServer(svc.Image); e != nil && e.Server.No != "" {
							where = fmt.Sprintf("the service %s, a PostgreSQL server of the catalogue (%s) whose socket the tool does not set up (UDS165 says why): to migrate it anyway, name it with --db %s --socket-dir %s=DIR", h, e.Family, h, h)
						}
					}
				}
				hits = append(hits, fmt.Sprintf("%s/%s points at %s, %s", name, v.Key, strings.Join(hosts, ","), strings.TrimPrefix(where, "the ")))
				continue
			}
			// A host variable naming a service (sameersbn/gitlab's
			// DB_HOST=postgresql on a PostgreSQL image the catalogue does
			// not know): the same way out, --db.
			if h := strings.TrimSpace(v.Value); hostvar.IsHostKey(v.Key) && h != name {
				// Only a database's host by its name or its image's
				// (REDIS_HOST=redis is none).
				if svc, ok := p.Model.Services[h]; ok && (dbKeyRE.MatchString(v.Key) || strings.Contains(strings.ToLower(svc.Image), "postgres")) {
					hits = append(hits, fmt.Sprintf("%s/%s names the service %s, whose image (%s) is not a PostgreSQL image the tool knows: if it is one, name it with --db %s (and --socket-dir when its socket is not in /var/run/postgresql)", name, v.Key, h, p.Model.Services[h].Image, h))
				}
			}
		}
	}
	if len(hits) == 0 {
		return ""
	}
	return "; " + strings.Join(hits, "; ")
}

func firstDiffLine(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			return fmt.Sprintf("line %d", i+1)
		}
	}
	return fmt.Sprintf("line %d", len(al)+1)
}

// carriedAs is the severity migrate gives a validate error of code it
// carries into the output (finding.Code.CarriedAs), or "".
func carriedAs(code string) Severity {
	c, _ := LookupCode(code)
	return c.CarriedAs
}

func carriedFindings(ctx context.Context, inputs []Input, opts Options) []Finding {
	before, err := validate.Validate(ctx, inputs, opts)
	if err != nil {
		return nil
	}
	var out []Finding
	for _, f := range before {
		if sev := carriedAs(f.Code); f.Severity == SevError && sev != "" {
			f.Severity = sev
			out = append(out, f)
		}
	}
	return out
}
