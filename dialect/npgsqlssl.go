package dialect

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// npgsqlSSLKeys are Npgsql's spellings of the SSL mode keyword (keywords
// are case-insensitive; "SSL Mode" is the documented one).
var npgsqlSSLKeys = map[string]bool{"ssl mode": true, "sslmode": true}

// npgsqlSSLFails reports whether Npgsql fails over a Unix socket with SSL
// mode v. With Require, VerifyCA or VerifyFull it sends an SSLRequest on
// any socket; PostgreSQL answers 'N' on AF_UNIX, and Npgsql throws "SSL
// connection requested. No SSL enabled connection from this host is
// configured." for every mode but Prefer (npgsql/npgsql
// src/Npgsql/Internal/NpgsqlConnector.cs, RawOpen). Disable, Allow and
// Prefer connect.
func npgsqlSSLFails(v string) bool {
	norm := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(v))
	return norm == "require" || norm == "verifyca" || norm == "verifyfull"
}

// npgsqlSocketSSL sets a failing SSL mode of the Npgsql string s (pairs as
// npgsqlParse found them) to Disable, changing nothing else.
func npgsqlSocketSSL(s string, pairs []npgsqlPair) (string, []Note) {
	out := s
	var changed []string
	key := ""
	for i := len(pairs) - 1; i >= 0; i-- {
		p := pairs[i]
		if !npgsqlSSLKeys[p.key] || !npgsqlSSLFails(strings.TrimSpace(p.value)) {
			continue
		}
		key = strings.TrimSpace(s[strings.LastIndex(s[:p.start], ";")+1 : p.start]) // "SSL Mode=" as written
		changed = append(changed, key+strings.TrimSpace(s[p.start:p.end]))
		out = out[:p.start] + npgsqlSSLDisable + out[p.end:]
	}
	if len(changed) == 0 {
		return out, nil
	}
	return out, []Note{{Code: libpq.CodeSSLOnSocket, Message: libpq.SocketSSLMessage(strings.Join(changed, ", "), key+npgsqlSSLDisable) +
		"; Npgsql throws \"SSL connection requested. No SSL enabled connection from this host is configured.\" with Require and Verify*"}}
}

const npgsqlSSLDisable = "Disable"

// NpgsqlSSLProblem reports whether an Npgsql socket value keeps an SSL
// mode Npgsql fails on (validate, UDS216). PDO's pgsql: DSN is libpq's,
// which ignores sslmode on a socket.
func NpgsqlSSLProblem(val string) bool {
	if _, dialect, socket := Classify(val); dialect != Npgsql || !socket {
		return false
	}
	s := val
	pairs, ok := npgsqlParse(s)
	if !ok {
		return false
	}
	_, notes := npgsqlSocketSSL(s, pairs)
	return len(notes) > 0
}

// npgsqlToSocketSSL is npgsqlToSocket with the SSL mode rule. Not for PDO:
// its DSN goes to libpq, which ignores sslmode on a socket and rejects
// "Disable" (its values are lower case).
func npgsqlToSocketSSL(s, dir string, port int) (string, []Note, error) {
	out, notes, err := npgsqlToSocket(s, dir, port)
	if err != nil {
		return out, notes, err
	}
	if pairs, ok := npgsqlParse(out); ok {
		var more []Note
		out, more = npgsqlSocketSSL(out, pairs)
		notes = append(notes, more...)
	}
	return out, notes, nil
}

// NpgsqlRepairSSL rewrites the SSL Mode of an Npgsql socket value that
// Npgsql fails on over a socket (NpgsqlSSLProblem) to Disable; ok is false
// for any other value.
func NpgsqlRepairSSL(val string) (out string, notes []Note, ok bool) {
	if !NpgsqlSSLProblem(val) {
		return "", nil, false
	}
	pairs, _ := npgsqlParse(val)
	out, notes = npgsqlSocketSSL(val, pairs)
	return out, notes, true
}
