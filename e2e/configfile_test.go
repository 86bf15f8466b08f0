package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/uds-migrate/uds-migrate/configfile"
	"github.com/uds-migrate/uds-migrate/evidence"
)

// doubledFactory is what a JDBC URL in a configuration file would hold if
// the tool had written `$$FactoryArg` there as in the compose file: nothing
// interpolates the file, so pgjdbc gets a class name with `$$` and fails.
const doubledFactoryErr = "AFUNIXSocketFactory$$FactoryArg"

// fileEdges finds the socket-form connection strings in the configuration
// files a service mounts (bind mounts and configs: inside the project),
// read with the format's parser as the application would read them: no
// compose interpolation. Keys are "FILE KEY"; user and password come from
// the file's sibling settings (spring.datasource.username ...).
func fileEdges(p *types.Project, dbs []dbService, projDir string) []edge {
	isDB := map[string]bool{}
	for _, db := range dbs {
		isDB[db.name] = true
	}
	var edges []edge
	for _, name := range p.ServiceNames() {
		if isDB[name] {
			continue
		}
		var roots []string
		for _, v := range p.Services[name].Volumes {
			if v.Type == "bind" {
				roots = append(roots, v.Source)
			}
		}
		for _, c := range p.Services[name].Configs {
			if cfg, ok := p.Configs[c.Source]; ok && cfg.File != "" {
				roots = append(roots, cfg.File)
			}
		}
		for _, c := range p.Services[name].Configs {
			if cfg, ok := p.Configs[c.Source]; ok && cfg.Content != "" && cfg.File == "" {
				target := c.Target
				if target == "" {
					target = "/" + c.Source
				}
				edges = append(edges, inlineConfigEdges(name, c.Source, target, cfg.Content)...)
			}
		}
		for _, abs := range (evidence.Scope{ProjectDir: projDir, Roots: roots}).Files() {
			rel, _ := filepath.Rel(projDir, abs)
			rel = filepath.ToSlash(rel)
			if rel == "config/database.yml" {
				if e, ok := railsEdge(p.Services[name], abs); ok {
					edges = append(edges, e)
				}
				if e, ok := railsURLEdge(p.Services[name], abs); ok {
					edges = append(edges, e)
				}
				continue
			}
			edges = append(edges, fileEdgesOf(name, abs, rel)...)
		}
	}
	return edges
}

func fileEdgesOf(service, abs, rel string) []edge {
	format, ok := configfile.For(rel)
	if !ok {
		return nil
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil
	}
	vals, err := format.Values(data)
	if err != nil {
		return nil
	}
	env := map[string]string{}
	for _, v := range vals {
		env[strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(v.Key))] = v.Value
	}
	var out []edge
	for _, v := range vals {
		e, ok := classify(v.Value)
		if !ok {
			continue
		}
		e.service, e.key = service, strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(v.Key))
		e.fillDefaults(env)
		e.key, e.inFile = rel+" "+v.Key, true
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// railsEdge is the socket directory a Rails service gets from
// config/database.yml: ActiveRecord evaluates the ERB (a variable's default
// applies when the service does not set it), then hands host, port,
// username, password and database to the pg gem, i.e. libpq.
func railsEdge(svc types.ServiceConfig, abs string) (edge, bool) {
	data, err := os.ReadFile(abs)
	if err != nil {
		return edge{}, false
	}
	env := envValue(svc, "RAILS_ENV")
	if env == "" {
		env = "development"
	}
	host, key, ok, err := configfile.RailsHost(data, env)
	if err != nil || !ok || (key != "" && envValue(svc, key) != "") || !strings.HasPrefix(host.Value, "/") {
		return edge{}, false
	}
	setting := func(k string) string {
		v, _, _ := configfile.RailsSetting(data, env, k)
		return v.Value
	}
	e := edge{service: svc.Name, key: "config/database.yml " + env + ".host", dialect: "pgenv", dir: host.Value, port: 5432, inFile: true,
		value: "host=" + host.Value, user: setting("username"), password: setting("password"), database: setting("database")}
	if p := setting("port"); p != "" {
		fmt.Sscan(p, &e.port)
	}
	e.fillDefaults(map[string]string{})
	return e, true
}

// railsURLEdge is a literal url: of the service's database.yml environment.
func railsURLEdge(svc types.ServiceConfig, abs string) (edge, bool) {
	data, err := os.ReadFile(abs)
	if err != nil {
		return edge{}, false
	}
	env := envValue(svc, "RAILS_ENV")
	if env == "" {
		env = "development"
	}
	v, ok, err := configfile.RailsURL(data, env)
	if err != nil || !ok {
		return edge{}, false
	}
	e, ok := classify(v.Value)
	if !ok {
		return edge{}, false
	}
	e.service, e.key, e.inFile = svc.Name, "config/database.yml "+env+".url", true
	e.fillDefaults(map[string]string{})
	return e, true
}

// docEdges reads an environment value that is a whole configuration
// document (YAML over several lines, or a JSON object) as the program
// reading it would, and returns the connection strings inside it, each
// keyed by its setting's dotted path.
func docEdges(v string) []edge {
	read := configfile.YAML
	switch t := strings.TrimSpace(v); {
	case strings.HasPrefix(t, "{"):
		read = configfile.JSON
	case !strings.Contains(t, "\n"):
		return nil
	}
	vals, err := read([]byte(v))
	if err != nil {
		return nil
	}
	var out []edge
	for _, cv := range vals {
		if e, ok := classify(cv.Value); ok {
			e.key = cv.Key
			out = append(out, e)
		}
	}
	return out
}

// inlineConfigEdges reads an inline config (configs: NAME: content:, as
// compose computed it) as the file it becomes at target, in the format its
// name says, and returns its socket-form connection strings and its host
// settings that hold a directory (db.host: /var/run/postgresql, which the
// application hands to a libpq-family driver with the settings beside it:
// db.port, db.user, db.password, db.name).
func inlineConfigEdges(service, name, target, content string) []edge {
	var read func([]byte) ([]configfile.Value, error)
	switch strings.ToLower(filepath.Ext(target)) {
	case ".yml", ".yaml":
		read = configfile.YAML
	case ".json":
		read = configfile.JSON
	case ".properties":
		read = configfile.Properties
	default:
		return nil
	}
	vals, err := read([]byte(content))
	if err != nil {
		return nil
	}
	setting := map[string]string{}
	for _, v := range vals {
		setting[strings.ToLower(v.Key)] = v.Value
	}
	var out []edge
	for _, v := range vals {
		key := "configs." + name + " " + v.Key
		if e, ok := classify(v.Value); ok {
			e.service, e.key, e.inFile = service, key, true
			e.fillDefaults(map[string]string{})
			out = append(out, e)
			continue
		}
		prefix, last := "", strings.ToLower(v.Key)
		if i := strings.LastIndexByte(last, '.'); i >= 0 {
			prefix, last = last[:i+1], last[i+1:]
		}
		if last != "host" || !strings.HasPrefix(v.Value, "/") {
			continue
		}
		e := edge{service: service, key: key, dialect: "pgenv", dir: v.Value, port: 5432, inFile: true, value: "host=" + v.Value,
			user: firstSetting(setting, prefix, "user", "username"), password: setting[prefix+"password"], database: firstSetting(setting, prefix, "name", "dbname", "database")}
		if p := setting[prefix+"port"]; p != "" {
			fmt.Sscan(p, &e.port)
		}
		e.fillDefaults(map[string]string{})
		out = append(out, e)
	}
	return out
}

// firstSetting returns the first of prefix+keys set in settings.
func firstSetting(settings map[string]string, prefix string, keys ...string) string {
	for _, k := range keys {
		if v := settings[prefix+k]; v != "" {
			return v
		}
	}
	return ""
}
