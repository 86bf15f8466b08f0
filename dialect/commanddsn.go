package dialect

import (
	"regexp"
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// CommandDSNs returns the libpq keyword DSNs written in a command's words:
// each run of consecutive keyword=value words whose keywords libpq knows
// (`psql "host=db dbname=app"` inside `sh -c`), joined back with spaces.
// Word by word, "host=db" reads as a shell assignment and the DSN would go
// unseen (URLs are single words and need no joining).
func CommandDSNs(words []string) []string {
	var out, run []string
	flush := func() {
		if s := strings.Join(run, " "); libpq.IsDSN(s) {
			out = append(out, s)
		}
		run = nil
	}
	for _, w := range words {
		if k, _, ok := strings.Cut(w, "="); ok && libpq.Keywords[k] {
			run = append(run, w)
			continue
		}
		flush()
	}
	flush()
	return out
}

// schemelessRE is a connection address without a scheme:
// USER[:PASSWORD]@HOST[:PORT][/DB][?...], as Nakama's --database.address
// takes it (heroiclabs/nakama server/db.go prefixes postgres:// and parses
// the result with net/url before pgx). Groups: user, password, host,
// port, database.
var schemelessRE = regexp.MustCompile(`^([A-Za-z0-9_.%-]+)(?::([^\s@/]*))?@([A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\])(?::([0-9]{1,5}))?(/[^\s?#]*)?(\?\S*)?$`)

// SchemelessAddress reads a command word that is a connection address
// without a scheme (postgres:localdb@postgres:5432/nakama): its host, and
// the word with the password masked for a message. A word with neither a
// port nor a database after the host (an e-mail address, user@host) is
// none.
func SchemelessAddress(w string) (host, shown string, ok bool) {
	m := schemelessRE.FindStringSubmatchIndex(w)
	if m == nil || m[8] < 0 && m[10] < 0 {
		return "", "", false
	}
	shown = w
	if m[4] >= 0 && m[5] > m[4] {
		shown = w[:m[4]] + "****" + w[m[5]:]
	}
	return strings.Trim(w[m[6]:m[7]], "[]"), shown, true
}
