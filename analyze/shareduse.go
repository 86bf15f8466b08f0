package analyze

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/pgserver"
)

// keepSharedEnv drops the edges whose value is an env file line that
// another use needs unchanged: a ${VAR} in a service that does not get the
// socket volume (a command of a job, an excluded service or one outside the
// selected --profile), in build.args (a build has no volumes), or an
// env_file loaded by such a service. Rewriting that line would move them to
// a socket they cannot reach. Each dropped value gets UDS160. followed are
// the commands ("service/key") that reach the database only through a
// kept value's variable.
func (se sharedEnv) keep(edges []*Edge) ([]*Edge, map[string]bool) {
	cl := se.cl
	for changed := true; changed; {
		changed = false
		mounted := map[string]bool{}
		for _, db := range cl.dbs {
			mounted[db.Name] = true // a server mounts the volume and ignores client variables
		}
		for _, e := range edges {
			mounted[e.Var.Service] = true
		}
		var kept []*Edge
		for _, e := range edges {
			if other := (sharedEnv{cl}).otherUses(e, mounted); len(other) > 0 {
				if (sharedEnv{cl}).override(e, other) {
					kept = append(kept, e)
					continue
				}
				(sharedEnv{cl}).warn(e, other)
				changed = true
				continue
			}
			kept = append(kept, e)
		}
		edges = kept
	}
	return edges, (sharedEnv{cl}).followed(edges)
}

// followedCommands are the commands and entrypoints ("service/key") that
// reach the database only through a ${VAR} whose env file line is
// rewritten: they follow the variable, so they need no manual step
// (UDS127).
func (se sharedEnv) followed(edges []*Edge) map[string]bool {
	cl := se.cl
	followed := map[string]bool{}
	for _, e := range edges {
		if e.Var.EnvFile == nil || e.Var.Ref == "" {
			continue
		}
		for _, u := range cl.p.VarUses(e.Var.Ref) {
			key, _, _ := strings.Cut(u.Path, ".")
			if key == "command" || key == "entrypoint" {
				followed[u.Service+"/"+key] = true
			}
		}
	}
	return followed
}

// otherUses lists the uses of e's env file line that would break if it
// were rewritten, given the services that get the socket volume.
func (se sharedEnv) otherUses(e *Edge, mounted map[string]bool) []string {
	cl := se.cl
	if e.InFile != nil || e.Unset != nil || e.RailsVar != "" || e.Override {
		return nil
	}
	if e.Var.EnvFile == nil {
		return append(sharedNode(cl.p, e.Var, mounted), extendedAlone(cl.p, e.Var)...)
	}
	var out []string
	abs, _ := filepath.Abs(e.Var.EnvFile.Path)
	if e.Var.Ref != "" {
		for _, u := range cl.p.VarUses(e.Var.Ref) {
			if !mounted[u.Service] || u.Path == "build" || strings.HasPrefix(u.Path, "build.") {
				out = append(out, u.String())
			}
		}
		// the interpolation file is read alone by its folder's other
		// compose files too
		return append(out, standaloneUses(cl, e.Var.Ref, abs)...)
	}
	out = append(out, standaloneUses(cl, e.Var.Key, abs)...)
	for _, name := range cl.p.ServiceOrder() {
		if _, ignores := (inheritedVars{cl}).ignores(name, e.Var.Key); mounted[name] || ignores {
			continue
		}
		for _, f := range cl.p.Model.Services[name].EnvFiles {
			if f.Path == abs || f.Path == e.Var.EnvFile.Path {
				out = append(out, fmt.Sprintf("%s's env_file", name))
			}
		}
	}
	return slices.Compact(out)
}

// standaloneUses lists the services of the compose files beside the env
// file or beside a compose file of the run (docker-compose.migrate.yml
// beside docker-compose.yml, Weblate's docker-compose-https.yml; in the
// base file's folder any file compose-go loads, whatever its name:
// dockerizing-django's production.yml, compose.SiblingFiles) that the
// -f set does not load and that read key from it when run alone: ${KEY} in a
// value, when the env file is that file's folder's .env (compose's
// interpolation file), or the file in their env_file. Such a project has
// no socket mount (nestjs-prisma-starter's npm run docker:migrate runs
// docker-compose.migrate.yml alone). A file the run reads only through
// extends.file counts too: it still runs alone (Ghostfolio's
// docker-compose.build.yml extends the default docker-compose.yml, both on
// ../.env). PostgreSQL servers, poolers and images that read no connection
// variable do not count.
func standaloneUses(cl *collector, key, envAbs string) []string {
	loaded := map[string]bool{}
	dirs := []string{filepath.Dir(envAbs)}
	for _, s := range cl.p.Sources {
		if a, err := filepath.Abs(s.Path); err == nil {
			loaded[a] = true
			dirs = append(dirs, filepath.Dir(a))
		}
	}
	slices.Sort(dirs)
	var files []string
	for _, dir := range slices.Compact(dirs) {
		for _, pat := range siblingPatterns {
			m, _ := filepath.Glob(filepath.Join(dir, pat))
			files = append(files, m...)
		}
	}
	// The base file's folder holds variants named freely (production.yml,
	// stack.yml): every compose file compose-go loads there counts.
	if len(cl.p.Sources) > 0 {
		if base, err := filepath.Abs(cl.p.Sources[0].Path); err == nil {
			for _, f := range compose.SiblingFiles(context.Background(), filepath.Dir(base), cl.opts.LoadOptions()) {
				// a library the run reads through extends.file (common.yml)
				// is part of this project, not one run alone
				if !slices.ContainsFunc(cl.p.ExtSources, func(src *compose.Source) bool { a, _ := filepath.Abs(src.Path); return a == f }) {
					files = append(files, f)
				}
			}
		}
	}
	slices.Sort(files)
	var out []string
	for _, f := range slices.Compact(files) {
		if loaded[f] {
			continue
		}
		data, err := cl.readFile(cl.p.DisplayPath(f))
		if err != nil {
			continue
		}
		if names := siblingReaders(cl, f, data, key, envAbs); len(names) > 0 {
			out = append(out, fmt.Sprintf("%s's %s (run alone)", filepath.Base(f), strings.Join(names, ", ")))
		}
	}
	return out
}

// rawService is the part of a compose service that siblingReaders reads
// as written, before compose-go resolves it.
type rawService struct {
	Image       string `yaml:"image"`
	Environment any    `yaml:"environment"`
	EnvFile     any    `yaml:"env_file"`
	Extends     struct {
		File    string `yaml:"file"`
		Service string `yaml:"service"`
	} `yaml:"extends"`
}

// siblingReaders names the services of the compose file f (its bytes
// data) that read key from the env file envAbs when f runs alone: the file
// in their env_file as compose resolves it (interpolated, ${ENV_VARS_DIRECTORY}/.env_db_pgsql,
// and inherited through extends, zabbix-docker's docker-compose_v3_*.yaml
// extending compose_zabbix_components.yaml), or ${key} in their
// environment (their own or an extended service's) when envAbs is f's
// folder's .env. When compose-go cannot load f alone, the env_file values
// as written are compared. PostgreSQL servers, poolers and images that
// read no connection variable do not count.
func siblingReaders(cl *collector, f string, data []byte, key, envAbs string) []string {
	var doc struct {
		Services map[string]rawService `yaml:"services"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return nil
	}
	dir := filepath.Dir(f)
	lo := cl.opts.LoadOptions()
	sib, err := compose.Load(context.Background(), []compose.Input{{Path: f, Data: data}}, compose.LoadOptions{Env: lo.Env, ReadFile: lo.ReadFile})
	ref := regexp.MustCompile(`\$\{?` + regexp.QuoteMeta(key) + `\b`)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(doc.Services)) {
		svc := doc.Services[name]
		image := svc.Image
		if err == nil {
			if m, ok := sib.Model.Services[name]; ok {
				image = m.Image
			}
		}
		if _, server := pgserver.FamilyOf(image); server || pgserver.IsPooler(image) {
			continue
		}
		if c := catalog.Lookup(image); c != nil && c.NotAClient {
			continue
		}
		var reads bool
		switch {
		case setsOwn(svc.Environment, key):
			// its own environment: beats env_file (UDS166's edit); it
			// reads the line only by interpolation (KEY: ${KEY})
			reads = envAbs == filepath.Join(dir, ".env") && extendedEnvRefers(cl, dir, svc, ref, 0)
		case err == nil:
			for _, ef := range sib.Model.Services[name].EnvFiles {
				p := ef.Path
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				reads = reads || filepath.Clean(p) == envAbs
			}
		default:
			reads = namesEnvFile(svc.EnvFile, dir, envAbs)
		}
		if !reads && envAbs == filepath.Join(dir, ".env") {
			reads = extendedEnvRefers(cl, dir, svc, ref, 0)
		}
		if reads {
			out = append(out, name)
		}
	}
	return out
}

// setsOwn reports whether a service's environment: as written (a map, or
// a list of KEY=value) sets key itself.
func setsOwn(env any, key string) bool {
	switch x := env.(type) {
	case map[string]any:
		_, ok := x[key]
		return ok
	case []any:
		for _, it := range x {
			if s, ok := it.(string); ok {
				if k, _, _ := strings.Cut(s, "="); k == key {
					return true
				}
			}
		}
	}
	return false
}

// extendedEnvRefers reports whether svc's environment, or that of the
// service it extends (followed up to 8 files deep), matches ref.
func extendedEnvRefers(cl *collector, dir string, svc rawService, ref *regexp.Regexp, depth int) bool {
	if env, _ := yaml.Marshal(svc.Environment); ref.Match(env) {
		return true
	}
	if svc.Extends.Service == "" || depth >= 8 {
		return false
	}
	file := svc.Extends.File
	if file != "" && !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	var doc struct {
		Services map[string]rawService `yaml:"services"`
	}
	if file != "" {
		data, err := cl.readFile(cl.p.DisplayPath(file))
		if err != nil || yaml.Unmarshal(data, &doc) != nil {
			return false
		}
		dir = filepath.Dir(file)
	} else {
		return false // extends within the same file: its service is checked on its own
	}
	base, ok := doc.Services[svc.Extends.Service]
	return ok && extendedEnvRefers(cl, dir, base, ref, depth+1)
}

// extendedAlone names the service of a compose file that the run reads
// only through extends.file ("docker-compose.yml's ghostfolio (run
// alone)") when v is written there: an edit lands in that file, which runs
// alone without the socket volume the run adds to its own files. Files not
// named like compose files (a library of common.yml services) do not count.
func extendedAlone(p *Project, v compose.EnvVar) []string {
	for _, src := range p.ExtSources {
		if src.Path != v.Pos.File || src.Root == nil || !isComposeName(filepath.Base(src.Path)) {
			continue
		}
		for i := 0; i+1 < len(src.Root.Content); i += 2 {
			if src.Root.Content[i].Value != "services" || src.Root.Content[i+1].Kind != yaml.MappingNode {
				continue
			}
			svcs := src.Root.Content[i+1].Content
			for j := 0; j+1 < len(svcs); j += 2 {
				next := j+2 >= len(svcs) || svcs[j+2].Line > v.Pos.Line
				if svcs[j].Line <= v.Pos.Line && next {
					return []string{fmt.Sprintf("%s's %s (run alone)", filepath.Base(src.Path), svcs[j].Value)}
				}
			}
		}
	}
	return nil
}

// isComposeName reports whether a file name matches siblingPatterns.
func isComposeName(base string) bool {
	return slices.ContainsFunc(siblingPatterns, func(pat string) bool {
		ok, _ := filepath.Match(pat, base)
		return ok
	})
}

// siblingPatterns are the names of a folder's compose files: the default
// names, their overrides (docker-compose.*.yml) and alternatives named
// otherwise (Weblate's docker-compose-https.yml, docker-compose-split.yml).
var siblingPatterns = []string{"*compose*.yml", "*compose*.yaml"}

// namesEnvFile reports whether an env_file: value (a string, a list of
// strings or of {path: ...}) names the file abs, relative to dir.
func namesEnvFile(v any, dir, abs string) bool {
	var paths []string
	switch x := v.(type) {
	case string:
		paths = []string{x}
	case []any:
		for _, it := range x {
			switch y := it.(type) {
			case string:
				paths = append(paths, y)
			case map[string]any:
				if p, ok := y["path"].(string); ok {
					paths = append(paths, p)
				}
			}
		}
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if filepath.Clean(p) == abs {
			return true
		}
	}
	return false
}

// sharedNode lists the services without the socket volume that read v's
// YAML node too: an anchor merged into several services (<<: *env), an
// alias, or a service extends copies it from. They get whatever the node
// says, mount or not (docker compose config shows the rewritten value on
// each). A catalogued image that reads no connection variable (redis,
// nginx: not_a_client) and is not built here does not count.
func sharedNode(p *Project, v compose.EnvVar, mounted map[string]bool) []string {
	var out []string
	for _, name := range p.ServiceOrder() {
		if name == v.Service || mounted[name] {
			continue
		}
		svc := p.Model.Services[name]
		if c := catalog.Lookup(svc.Image); c != nil && c.NotAClient && svc.Build == nil {
			continue
		}
		for _, o := range p.ServiceEnv(name) {
			if o.EnvFile == nil && o.Pos == v.Pos {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// override turns e, an env_file line that other uses need unchanged, into
// an entry of its service's own environment: (Edge.Override), when that is
// exact and reveals nothing: the value is a bare host variable (no
// password to copy into a compose file), the edge writes no sibling
// variable after the line (its Adds would land in the shared file), and
// the service's definition is a file of this run, not one it includes.
// compose gives environment: precedence over env_file (compose
// specification, services.env_file: "values set in environment take
// precedence"), so the service reads the socket directory and every other
// use keeps the line. It says so (UDS166).
func (se sharedEnv) override(e *Edge, other []string) bool {
	cl := se.cl
	v := e.Var
	if v.EnvFile == nil || v.Ref != "" || e.KeepValue || len(e.Adds) > 0 {
		return false
	}
	if e.Dialect != dialect.AppHostVar(false).Name && e.Dialect != dialect.AppHostVar(true).Name {
		return false
	}
	home := cl.p.ImageHome(v.Service)
	if home.Src == nil || slices.Index(cl.p.Sources, home.Src) >= len(cl.p.Sources)-cl.p.Included {
		return false
	}
	e.Override = true
	cl.decision(e, "UDS166", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s comes from %s in %s, which is also used by %s without the socket volume: that line stays, and %s gets its own %s in its environment: in %s, which takes precedence over env_file", v.Service, v.Key, v.Key, v.Pos.File, strings.Join(other, ", "), v.Service, v.Key, home.Src.Path))
	return true
}

func (se sharedEnv) warn(e *Edge, other []string) {
	cl := se.cl
	v := e.Var
	what := v.Key + " in " + v.Pos.File
	switch {
	case v.Ref != "":
		what = v.Ref + " in " + v.Pos.File
	case v.EnvFile == nil:
		what = fmt.Sprintf("%s at %s:%d, a line an anchor, alias or extends shares", v.Key, v.Pos.File, v.Pos.Line)
	}
	// A sibling run alone is its own project: it is migrated by its own
	// run, after its service gets its own value as well.
	var alone []string
	for _, o := range other {
		if f, _, ok := strings.Cut(o, "'s "); ok && strings.HasSuffix(o, " (run alone)") && !slices.Contains(alone, f) && f != filepath.Base(v.Pos.File) {
			alone = append(alone, f)
		}
	}
	also := ""
	if len(alone) > 0 {
		also = fmt.Sprintf(" (and the same in %s, then migrate each file on its own)", strings.Join(alone, ", "))
	}
	cl.note("UDS160", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s comes from %s, which is also used by %s without the socket volume: rewriting it would break them, so %s/%s is left on TCP; give %s its own value in environment: to migrate it%s", v.Service, v.Key, what, strings.Join(other, ", "), v.Service, v.Key, v.Service, also))
}
