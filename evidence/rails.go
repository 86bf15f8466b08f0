package evidence

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/configfile"
)

// railsEnv is the environment Rails loads: RAILS_ENV, then RACK_ENV, then
// development (railties: Rails.env).
func railsEnv(env map[string]string) string {
	for _, k := range []string{"RAILS_ENV", "RACK_ENV"} {
		if v := env[k]; v != "" {
			return v
		}
	}
	return "development"
}

// railsReader: config/database.yml whose environment has
// `host: <%= ENV.fetch("X") ... %>` with the postgresql (or postgis)
// adapter. ActiveRecord's PostgreSQL adapter hands host to the pg gem's
// PG.connect, i.e. to libpq (rails/rails: activerecord/lib/active_record/
// connection_adapters/postgresql_adapter.rb, new_client).
var railsReader = reader{
	match: func(rel string) bool {
		return rel == "config/database.yml" || strings.HasSuffix(rel, "/config/database.yml")
	},
	find: func(data []byte, key string, env map[string]string) (Verdict, bool) {
		name := railsEnv(env)
		adapter, ok, err := configfile.RailsSetting(data, name, "adapter")
		if err != nil || !ok || (adapter.Value != "postgresql" && adapter.Value != "postgis") {
			return Verdict{}, false
		}
		host, ok, err := configfile.RailsSetting(data, name, "host")
		if err != nil || !ok || !host.ERB {
			return Verdict{}, false
		}
		if k, ok := configfile.ERBEnvRead(host.Text); !ok || k != key {
			return Verdict{}, false
		}
		return Verdict{Directory: true, Driver: "pg gem (libpq)", Line: host.Line,
			Reason: "Rails' config/database.yml (" + name + ", adapter " + adapter.Value + ") takes host from " + key}, true
	},
}

// railsCaseReader: a database.yml (config/database.yml, or one an app
// loads through config.paths["config/database"], as solidus' dummy app
// core/lib/spree/testing_support/dummy_app/database.yml) whose ERB code
// picks adapter and host with case expressions (configfile.ERBCaseHost):
// X reaches host only where the adapter is postgresql or postgis,
// whichever environment section reads it, and so only the pg gem.
var railsCaseReader = reader{
	match: func(rel string) bool {
		return rel == "database.yml" || strings.HasSuffix(rel, "/database.yml")
	},
	find: func(data []byte, key string, _ map[string]string) (Verdict, bool) {
		line, ok := configfile.ERBCaseHost(data, key, pgAdapters)
		if !ok {
			return Verdict{}, false
		}
		return Verdict{Directory: true, Driver: "pg gem (libpq)", Line: line,
			Reason: "Rails' database.yml hands " + key + " to host only in branches of its ERB code where the adapter is the pg gem's (postgresql, postgis)"}, true
	},
}

// pgAdapters are ActiveRecord's adapters over the pg gem.
var pgAdapters = []string{"postgresql", "postgis"}
