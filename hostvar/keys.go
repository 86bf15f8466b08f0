package hostvar

import (
	"regexp"
	"strings"
)

// appHostRE matches application-specific host variables (DB_HOST,
// POSTGRES_HOST, KC_DB_URL_HOST, GITEA__database__HOST ...).
var appHostRE = regexp.MustCompile(`(?i)(^|_)(HOST|HOSTNAME|SERVER|ADDR|ADDRESS)$`)

// IsHostKey reports whether an environment variable's name says it holds
// a database host: PGHOST, or an application host variable (IsAppHostKey).
func IsHostKey(key string) bool {
	return key == "PGHOST" || IsAppHostKey(key)
}

// IsAppHostKey reports whether a name is an application's host variable
// (DB_HOST, POSTGRES_HOST, KC_DB_URL_HOST, GITEA__database__HOST ...), which
// only the application reads: not libpq's PGHOST.
func IsAppHostKey(key string) bool {
	return appHostRE.MatchString(key)
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
