package hostvar

import (
	"regexp"
	"strings"
)

// appHostRE matches application-specific host variables (DB_HOST,
// DBHOST, POSTGRES_HOST, KC_DB_URL_HOST, GITEA__database__HOST ...).
var appHostRE = regexp.MustCompile(`(?i)(HOST|HOSTNAME|(^|_)(SERVER|ADDR|ADDRESS))$`)

// IsHostKey reports whether an environment variable's name says it holds
// a database host: PGHOST, or an application host variable (IsAppHostKey).
func IsHostKey(key string) bool {
	return key == "PGHOST" || IsAppHostKey(key)
}

// IsAppHostKey reports whether a name is an application's host variable
// by its ending (DB_HOST, DBHOST, POSTGRES_HOST, KC_DB_URL_HOST,
// GITEA__database__HOST, DB_SERVER ...). PGHOST ends so too.
func IsAppHostKey(key string) bool {
	return appHostRE.MatchString(key)
}

// otherRoleRE matches variable names that say they hold something other
// than where to connect, whose value often equals a database service's
// name (a service named postgres or db): POSTGRES_USER, DB_NAME, DBNAME,
// KC_DB (Keycloak's vendor), DB_TYPE, DB_DRIVER, DB_CONNECTION (Laravel's
// driver), DB_ADAPTER, SPRING_PROFILES_ACTIVE, and settings a role or
// initdb takes (DB_OWNER, APP_DB_ROLE, POSTGRES_INITDB_ARGS).
var otherRoleRE = regexp.MustCompile(`(?i)(USER|USERNAME|PASSWORD|PASSWD|PASS|PWD|SECRET|NAME|DB|DBNAME|DATABASE|SCHEMA|PORT|TYPE|DRIVER|ENGINE|DIALECT|VENDOR|KIND|FLAVOR|ADAPTER|PROVIDER|CONNECTION|CLIENT|BACKEND|STORE|STORAGE|PROFILE|PROFILES|PROFILES_ACTIVE|MODE|IMAGE|VERSION|SERVICE|SERVICE_NAME|ROLE|OWNER|LOGIN|ACCOUNT|ARGS|OPTS|OPTIONS|FLAGS|LOCALE|ENCODING|SCHEME|PROTOCOL|FORMAT|CATALOG|TABLESPACE)$`)

// NamesOtherRole reports whether a variable's name says it holds something
// other than a host (otherRoleRE).
func NamesOtherRole(key string) bool {
	return otherRoleRE.MatchString(key)
}

// IsLibpqSetting reports whether key is one of libpq's environment
// variables (PostgreSQL docs, "Environment Variables") that names no
// server: PGSSLMODE, PGUSER, PGPORT ... A socket form does not apply to
// them (PGSSLMODE gets its own rule, fixPGSSLMode).
func IsLibpqSetting(key string) bool {
	return strings.HasPrefix(key, "PG") && key != "PGHOST" && key != "PGHOSTADDR" && key != "PGSERVICE" && key != "PGSERVICEFILE"
}

// PortSibling names the port variable that goes with a host variable:
// DB_HOST → DB_PORT, GITEA__database__HOST → GITEA__database__PORT.
func PortSibling(key string) string {
	i := strings.LastIndex(strings.ToUpper(key), "HOST")
	if i < 0 {
		return key + "_PORT"
	}
	port := "PORT"
	if key[i:i+4] == "host" {
		port = "port"
	}
	return key[:i] + port + key[i+4:]
}
