package dialect

import (
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
