package libpq

import (
	"fmt"
	"strings"
)

// SocketSSLMode is the sslmode every driver accepts over a Unix socket.
// PostgreSQL never offers TLS on a socket, and the peer is the local server
// behind a file the kernel guards, so there is nothing for TLS to protect:
//
//   - libpq, pgx and psycopg ignore sslmode on a socket;
//   - pgjdbc (with junixsocket) and sqlx fail with require and verify-*;
//   - node pg (pg-connection-string, brianc/node-postgres
//     packages/pg-connection-string/index.js) turns TLS on for every sslmode
//     but disable, and for sslcert, sslkey or sslrootcert alone; over a
//     socket it then fails with "The server does not support SSL
//     connections" (checked with pg 8.23.1, prefer included). Its PGSSLMODE
//     reading does the same for require, prefer, verify-* and no-verify.
const SocketSSLMode = "disable"

// SSLModeFailsOnSocket reports whether some driver may fail over a Unix
// socket with sslmode v: every value but disable, and a value that holds a
// compose reference (unknown), since whatever the variable holds, only
// disable is right for every driver there.
func SSLModeFailsOnSocket(v string) (fails, unknown bool) {
	if hasPlaceholder(v) {
		return true, true
	}
	// Exactly "disable": libpq and node pg compare the value as written
	// (strcmp, ===), so DISABLE is no disable there (FuzzDSNToSocket).
	return strings.TrimSpace(v) != SocketSSLMode, false
}

// certKeys turn TLS on in node pg without an sslmode.
var certKeys = map[string]bool{"sslcert": true, "sslkey": true, "sslrootcert": true}

// SocketSSLParams applies the socket rule to URI query parameters: every
// sslmode some driver fails on becomes disable; ssl=true and ssl=1 (TLS on
// for libpq and node pg) are removed; sslmode=disable is appended when
// neither sslmode is left but TLS was asked for (ssl=true, or a certificate
// parameter, which node pg reads as "use TLS"). Certificate parameters are
// kept: with sslmode=disable no driver uses them (libpq and pgx never load
// them on a socket; node pg reads the files, which the client had before,
// and then turns TLS off), and they let a revert to TCP keep its TLS
// setup. A reference (${VAR}) in sslmode is kept with a Note.
func SocketSSLParams(params []Param) ([]Param, []Note) {
	var out []Param
	var changed []string
	hasMode, wantTLS := false, false
	for _, p := range params {
		k, v := decode(p.Key), decode(p.Value)
		switch {
		case k == "sslmode":
			hasMode = true
			if fails, unk := SSLModeFailsOnSocket(v); fails {
				changed = append(changed, settingText(p.String(), unk))
				p = Param{Key: p.Key, Value: SocketSSLMode}
			}
		case k == "ssl" && (v == "true" || v == "1"):
			changed = append(changed, p.String())
			wantTLS = true
			continue
		case certKeys[k]:
			wantTLS = true
		}
		out = append(out, p)
	}
	if !hasMode && wantTLS {
		if n := len(out); n > 0 && out[n-1].bare && out[n-1].Key == "" {
			out = out[:n-1]
		}
		out = append(out, Param{Key: "sslmode", Value: SocketSSLMode})
		if len(changed) == 0 {
			changed = append(changed, "sslcert/sslkey/sslrootcert without sslmode (node pg turns TLS on for them)")
		}
	}
	return out, sslNotes(changed)
}

// socketSSL applies the socket rule to a keyword/value string: every
// sslmode token some driver fails on becomes disable, and sslmode=disable
// is appended when there is none but a certificate keyword asks for TLS
// (node pg's reading). Certificate keywords are kept (see SocketSSLParams).
func (d *DSN) socketSSL() []Note {
	var changed []string
	hasMode, wantTLS := false, false
	for i := range d.items {
		it := &d.items[i]
		if it.opaque {
			continue
		}
		switch {
		case it.key == "sslmode":
			hasMode = true
			v := unquote(it.raw)
			if fails, unk := SSLModeFailsOnSocket(v); fails {
				changed = append(changed, settingText("sslmode="+v, unk))
				it.raw = setValue(it.raw, SocketSSLMode)
			}
		case certKeys[it.key]:
			wantTLS = true
		}
	}
	if !hasMode && wantTLS {
		d.insert(len(d.items), dsnItem{lead: " ", key: "sslmode", mid: "=", raw: SocketSSLMode})
		changed = append(changed, "sslcert/sslkey/sslrootcert without sslmode (node pg turns TLS on for them)")
	}
	return sslNotes(changed)
}

// SocketSSLMessage explains the rewrite of setting (as written) to
// replacement; it names no value but the settings' own.
func SocketSSLMessage(setting, replacement string) string {
	return fmt.Sprintf("%s → %s: TLS does not apply on a Unix socket (PostgreSQL never offers it there; the peer is the local server, reached through a file the kernel guards), and some drivers fail when asked for it (node pg on every sslmode but disable, pgjdbc and sqlx on require and verify-*)", setting, replacement)
}

func sslNotes(changed []string) []Note {
	if len(changed) == 0 {
		return nil
	}
	return []Note{{Code: CodeSSLOnSocket, Message: SocketSSLMessage(strings.Join(changed, ", "), "sslmode="+SocketSSLMode)}}
}

// settingText names a setting for a message; one set from a compose
// reference is not quoted (the reference is an opaque rune here).
func settingText(setting string, fromVariable bool) string {
	if fromVariable {
		k, _, _ := strings.Cut(setting, "=")
		return k + " (set from a variable, whose value no longer applies)"
	}
	return setting
}

// SocketSSLURI applies SocketSSLParams to the query of URI s, changing
// nothing else.
func SocketSSLURI(s string) (string, []Note, error) {
	u, err := ParseURI(s)
	if err != nil {
		return "", nil, err
	}
	var notes []Note
	u.Params, notes = SocketSSLParams(u.Params)
	if len(u.Params) > 0 {
		u.HasQuery = true
	}
	return u.String(), notes, nil
}

// SocketSSLDSN applies the socket rule of DSNToSocket to the TLS keywords
// of keyword/value string s, changing nothing else.
func SocketSSLDSN(s string) (string, []Note, error) {
	d, err := ParseDSN(s)
	if err != nil {
		return "", nil, err
	}
	notes := d.socketSSL()
	return d.String(), notes, nil
}
