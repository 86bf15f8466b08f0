package rewrite

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
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
	if tied := runtimeClients(pl); tied != "" {
		// Nothing in the files connects, yet an application can reach
		// the server: FreshRSS's host is typed in its web installer and
		// kept in data/config.php on a volume (trial 11 D4).
		return fmt.Sprintf("no connection value to %s was found in the files the tool reads, but %s: a connection configured at run time (a web installer, database settings kept in a volume or elsewhere) stays on TCP; change its host to the socket directory %s by hand, with %s's socket shared through a volume mounted there read-only", strings.Join(names, ", "), tied, pl.opts.MountPath, strings.Join(names, ", "))
	}
	return fmt.Sprintf("no service connects to %s over TCP (values already in socket form are left as they are)", strings.Join(names, ", "))
}

// runtimeClients names, for a summary that would say no service
// connects, the application services that could connect at run time: a
// client (not a pooler, not an image the catalogue knows reads no
// connection, such as redis or nginx) that depends on a database or shares
// a compose network with one. Left out is one whose code in view opens
// no connection (UDS137 says so). It is "" when there is none, and when a
// client already uses a socket (a socket-form value, a mount at the socket
// mount path or of a database's volume): the connections are found.
func runtimeClients(pl *pass) string {
	codeSeen := map[string]bool{}
	for _, n := range pl.top.Notes {
		if n.Finding.Code == "UDS137" {
			codeSeen[n.Finding.Service] = true
		}
	}
	dbVolumes := map[string]bool{}
	for _, db := range pl.top.DBs {
		for _, v := range pl.p.Model.Services[db.Name].Volumes {
			if v.Type == types.VolumeTypeVolume && v.Source != "" && (v.Target == db.SocketDir || v.Target == db.ConfigDir) {
				dbVolumes[v.Source] = true
			}
		}
	}
	var depends, shares []string
	for _, c := range pl.top.Clients {
		svc := pl.p.Model.Services[c.Name]
		if c.Pooler || codeSeen[c.Name] || svc.NetworkMode == "host" || svc.NetworkMode == "none" {
			continue
		}
		if e := catalog.Lookup(svc.Image); e != nil && (e.NotAClient || e.Server != nil) && svc.Build == nil {
			continue
		}
		if slices.ContainsFunc(svc.Volumes, func(v types.ServiceVolumeConfig) bool {
			return v.Target == pl.opts.MountPath || (v.Type == types.VolumeTypeVolume && dbVolumes[v.Source])
		}) || slices.ContainsFunc(pl.p.ServiceEnv(c.Name), func(v compose.EnvVar) bool {
			_, _, socket := dialect.Classify(v.Value)
			return socket
		}) {
			// The project's connections are found and on the socket
			// (a second run, hydra's consent beside the migrated
			// hydra): another service on the network is no sign of one
			// more.
			return ""
		}
		for _, db := range pl.top.DBs {
			if _, ok := svc.DependsOn[db.Name]; ok {
				depends = append(depends, c.Name)
				break
			}
			if sharedNetwork(svc, pl.p.Model.Services[db.Name]) {
				shares = append(shares, c.Name)
				break
			}
		}
	}
	var out []string
	if len(depends) > 0 {
		out = append(out, strings.Join(depends, ", ")+" depend"+plural(len(depends) == 1)+" on it")
	}
	if len(shares) > 0 {
		out = append(out, strings.Join(shares, ", ")+" share"+plural(len(shares) == 1)+" a network with it")
	}
	return strings.Join(out, " and ")
}

// plural is the verb ending for a singular subject: "s" when one.
func plural(one bool) string {
	if one {
		return "s"
	}
	return ""
}

// sharedNetwork reports whether two services are attached to a common
// compose network (a service that lists none is on "default").
func sharedNetwork(a, b types.ServiceConfig) bool {
	if b.NetworkMode == "host" || b.NetworkMode == "none" {
		return false
	}
	nets := func(s types.ServiceConfig) []string {
		if len(s.Networks) == 0 {
			return []string{"default"}
		}
		return slices.Collect(maps.Keys(s.Networks))
	}
	bn := nets(b)
	return slices.ContainsFunc(nets(a), func(n string) bool { return slices.Contains(bn, n) })
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

// noSocketReason describes a server image the catalogue lists with a no:
// (supabase/postgres: peer authentication on local connections) by the
// catalogue's reason and source, for a summary; "" for any other image.
func noSocketReason(image string) string {
	e := catalog.LookupServer(image)
	if e == nil || e.Server.No == "" {
		return ""
	}
	return fmt.Sprintf("a PostgreSQL server of the catalogue (image %s) whose socket the tool does not set up: %s (%s); left on TCP", image, e.Server.No, hostvar.CatalogueBasis(e, "").Citation())
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
						if no := noSocketReason(svc.Image); no != "" {
							where = "the service " + h + ", " + no
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
					if no := noSocketReason(svc.Image); no != "" {
						// a catalogued no: server (trial 11 D6:
						// supabase/postgres): its reason, never --db
						hits = append(hits, fmt.Sprintf("%s/%s names the service %s, %s", name, v.Key, h, no))
						continue
					}
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
