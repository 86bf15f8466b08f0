package evidence

import "regexp"

// djangoEngineRE finds a PostgreSQL database backend in Django settings.
// Both hand settings_dict["HOST"] to psycopg as host
// (django/django: django/db/backends/postgresql/base.py,
// get_connection_params), and psycopg passes it to libpq, which takes an
// absolute path as the socket directory (PostgreSQL docs, libpq
// "Parameter Key Words", host).
var djangoEngineRE = regexp.MustCompile(`["'](django\.db\.backends\.postgresql(?:_psycopg2)?|django\.contrib\.gis\.db\.backends\.postgis)["']`)

// djangoReader: `"HOST": os.environ.get("X", ...)` in settings with a
// PostgreSQL ENGINE.
var djangoReader = reader{
	match: func(rel string) bool { return hasExt(rel, ".py") },
	find: func(data []byte, key string, _ map[string]string) (Verdict, bool) {
		engine := djangoEngineRE.FindSubmatch(data)
		if engine == nil {
			return Verdict{}, false
		}
		line, ok := firstLine(data, `["']HOST["']\s*:\s*`+readOrAlias(data, pyEnvRead(key), pyAssign))
		if !ok {
			return Verdict{}, false
		}
		return Verdict{Directory: true, Driver: "psycopg (libpq)", Line: line,
			Reason: "Django's DATABASES HOST reads " + key + " with ENGINE " + string(engine[1]) + ", which hands it to psycopg, i.e. libpq"}, true
	},
}
