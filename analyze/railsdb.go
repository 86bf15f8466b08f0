package analyze

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/configfile"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// railsEdges finds Rails clients whose config/database.yml (reaching the
// container) gives the host for their environment itself: a plain
// `host: db`, or the ERB default of a variable the service does not set
// (`<%= ENV.fetch("DB_HOST") { "db" } %>`). ActiveRecord's PostgreSQL
// adapter hands host to libpq (pg gem), so it becomes the socket
// directory, edited in place with the ERB tag, anchors and merges kept.
// A service that sets the variable is the host variable path's
// (hostvar.Query.HostVar), not this one.
func (fv fileValues) rails() []*Edge {
	cl := fv.cl
	var out []*Edge
	for _, name := range cl.clientServices() {
		if (assetBuilds{cl}).only(name) {
			continue // its command is an asset build: it reads no database.yml
		}
		scope := cl.scopes.Of(name)
		for _, abs := range railsDatabaseYMLs(scope) {
			if e := (fileValues{cl}).railsHost(name, abs, scope.Env); e != nil {
				out = append(out, e)
			}
			if e := (fileValues{cl}).railsURL(name, abs, scope.Env); e != nil {
				out = append(out, e)
			}
		}
	}
	return out
}

// railsDatabaseYMLs returns the config/database.yml files of scope that
// Rails would read. Rails reads only <Rails.root>/config/database.yml, and
// the root is where the code reaches the container: a file at
// config/database.yml directly below a root the scope mounts or builds
// wins, and a copy deeper in the tree (old/config/database.yml, a vendored
// engine's spec/dummy/config/database.yml) is then not the app's. With no
// such file, the shallowest ones count (an app in backend/ of a mounted
// repository).
func railsDatabaseYMLs(scope evidence.Scope) []string {
	var atRoot, found []string
	depth := -1
	for _, abs := range scope.Files() {
		if filepath.Base(abs) != "database.yml" || filepath.Base(filepath.Dir(abs)) != "config" {
			continue
		}
		for _, root := range scope.Roots {
			if filepath.Clean(root) == abs || filepath.Join(root, "config", "database.yml") == abs {
				atRoot = append(atRoot, abs)
				break
			}
		}
		rel, err := filepath.Rel(scope.ProjectDir, abs)
		if err != nil {
			continue
		}
		switch n := strings.Count(filepath.ToSlash(rel), "/"); {
		case depth < 0 || n < depth:
			depth, found = n, []string{abs}
		case n == depth:
			found = append(found, abs)
		}
	}
	if len(atRoot) > 0 {
		return atRoot
	}
	return found
}

// railsEdge reads one database.yml for one service.
func (fv fileValues) railsHost(service, abs string, env map[string]string) *Edge {
	cl := fv.cl
	path := cl.p.DisplayPath(abs)
	data, err := cl.readFile(path)
	if err != nil {
		return nil
	}
	railsEnv := railsEnvOf(env)
	adapter, ok, err := configfile.RailsSetting(data, railsEnv, "adapter")
	if err != nil || !ok || (adapter.Value != "postgresql" && adapter.Value != "postgis") {
		return nil
	}
	v, envKey, ok, err := configfile.RailsHost(data, railsEnv)
	if err != nil || !ok || (envKey != "" && env[envKey] != "") {
		return nil
	}
	if strings.HasPrefix(v.Value, "/") {
		cl.sawSocket(SocketSetting{Service: service, Key: "host", Pos: finding.Pos{File: path, Line: v.Line, Col: v.Col},
			Dialect: dialect.AppHostVar(false).Name, Value: v.Value, In: &ConfigValue{Path: path, Data: data, Value: v}, Host: true})
		return nil
	}
	ev := compose.EnvVar{Service: service, Key: "host", Raw: v.Value, Value: v.Value, Pos: finding.Pos{File: path, Line: v.Line, Col: v.Col}}
	db := cl.dbAt(ev, v.Value)
	if db == nil {
		return nil
	}
	e := &Edge{Var: ev, Dialect: dialect.AppHostVar(false).Name, DB: db, Port: db.Port, InFile: &ConfigValue{Path: path, Data: data, Value: v}}
	e.Basis = hostvar.EvidenceBasis(path, v.Line, "pg gem (libpq)", fmt.Sprintf("Rails' %s (%s, adapter %s) sets host itself", path, railsEnv, adapter.Value))
	if envKey != "" {
		e.Basis.Detail = fmt.Sprintf("Rails' %s (%s, adapter %s) falls back to the ERB default %q because %s does not set %s", path, railsEnv, adapter.Value, v.Value, service, envKey)
		e.RailsVar = envKey
	}
	return e
}

// railsEnvOf is Rails.env: RAILS_ENV, then RACK_ENV, then development.
func railsEnvOf(env map[string]string) string {
	for _, k := range []string{"RAILS_ENV", "RACK_ENV"} {
		if v := env[k]; v != "" {
			return v
		}
	}
	return "development"
}

// railsURLEdge handles a literal `url:` in database.yml: a libpq URI that
// ActiveRecord merges over the other settings.
func (fv fileValues) railsURL(service, abs string, env map[string]string) *Edge {
	cl := fv.cl
	path := cl.p.DisplayPath(abs)
	data, err := cl.readFile(path)
	if err != nil {
		return nil
	}
	v, ok, err := configfile.RailsURL(data, railsEnvOf(env))
	if err != nil || !ok {
		return nil
	}
	return (fileValues{cl}).edge(service, path, data, v)
}
