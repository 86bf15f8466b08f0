package evidence

import "regexp"

// djangoEngineRE finds a PostgreSQL database backend in Django settings.
// Both hand settings_dict["HOST"] to psycopg as host
// (django/django: django/db/backends/postgresql/base.py,
// get_connection_params), and psycopg passes it to libpq, which takes an
// absolute path as the socket directory (PostgreSQL docs, libpq
// "Parameter Key Words", host).
var djangoEngineRE = regexp.MustCompile(`["'](django\.db\.backends\.postgresql(?:_psycopg2)?|django\.contrib\.gis\.db\.backends\.postgis)["']`)

// djangoEngineVarRE finds an ENGINE read from a variable
// (`"ENGINE": os.environ.get("SQL_ENGINE", ...)`): the service's value
// decides.
var djangoEngineVarRE = regexp.MustCompile(`["']ENGINE["']\s*:\s*` + pyEnvReadRE(`([A-Za-z_][A-Za-z0-9_]*)`))

// djangoEngine returns the PostgreSQL backend the settings select, written
// in the file or set in the service's environment.
// A variable the service sets wins over a literal default in the file.
func djangoEngine(data []byte, env map[string]string) (string, bool) {
	if m := djangoEngineVarRE.FindSubmatch(data); m != nil {
		if v, set := env[string(m[1])]; set && v != "" {
			return v + " (from " + string(m[1]) + ")", djangoEngineRE.MatchString(`"` + v + `"`)
		}
	}
	if m := djangoEngineRE.FindSubmatch(data); m != nil {
		return string(m[1]), true
	}
	return "", false
}

// djangoReader: `"HOST": os.environ.get("X", ...)` in settings with a
// PostgreSQL ENGINE.
var djangoReader = reader{
	match: func(rel string) bool { return hasExt(rel, ".py") },
	find: func(data []byte, key string, env map[string]string) (Verdict, bool) {
		engine, ok := djangoEngine(data, env)
		if !ok {
			return Verdict{}, false
		}
		line, ok := firstLine(data, `["']HOST["']\s*:\s*`+readOrAlias(data, pyEnvRead(key), pyAssign))
		if !ok {
			return Verdict{}, false
		}
		return Verdict{Directory: true, Driver: "psycopg (libpq)", Line: line,
			Reason: "Django's DATABASES HOST reads " + key + " with ENGINE " + engine + ", which hands it to psycopg, i.e. libpq"}, true
	},
}
