package dialect

import (
	"regexp"
	"strings"

	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/jdbc"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// Redact masks the passwords of a value for reports and messages, by the
// grammar of its dialect, as written AND as compose would interpolate it:
// s may be compose text with references (${DB_SCHEME:-postgresql}://u:pw@db,
// u:pw${MID}more@db, ${URL:-postgres://u:pw@db/app}). Each reference's
// default or alternative is redacted as a value of its own; the text around
// the references is redacted with each reference standing as one opaque
// character, so a password that a reference starts, splits or ends is
// masked whole. A Celery URL is redacted as one whatever dialect the caller
// names; a value of no known dialect (a postgis:// URL) gets the generic
// backstop: the userinfo password of any URL and the value after any
// password keyword.
func Redact(name, s string) string {
	if !strings.Contains(s, "$") {
		return redactPlain(name, s)
	}
	m, err := interp.Mask(s)
	if err != nil {
		// An unterminated ${: compose refuses the value; mask it as text.
		return redactPlain(name, s)
	}
	for i, r := range m.Refs {
		m.Refs[i] = redactRef(name, r)
	}
	return m.Unmask(redactPlain(name, m.Value))
}

// refWordRE splits a braced reference into its name, operator and word
// (Compose Specification, "Interpolation": :-, -, :+, +, :?, ?).
var refWordRE = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[-+?])((?s).*)\}$`)

// redactRef redacts the word of a reference (its default, alternative or
// error text), which compose may put in the value.
func redactRef(name, ref string) string {
	sub := refWordRE.FindStringSubmatch(ref)
	if sub == nil || sub[3] == "" {
		return ref
	}
	return "${" + sub[1] + sub[2] + Redact(name, sub[3]) + "}"
}

// redactPlain redacts a value without references (or with references
// masked as placeholder runes): the dialect's own redactor, then the
// backstop for what a parser rejected or a dialect does not know.
func redactPlain(name, s string) string {
	orig := s
	switch {
	case celeryDialect.Match(s):
		s = celeryDialect.Redact(s)
	default:
		if d, ok := Lookup(name); ok && d.Redact != nil {
			s = d.Redact(s)
		} else {
			s = libpq.Redact(s)
		}
	}
	return maskEqualParts(redactBackstop(s), maskedTexts(orig, redactBackstop(s)))
}

// maskedTexts returns the texts of orig that redacted masks: where
// redacted has "****", orig has a password. Both run alike around them.
func maskedTexts(orig, redacted string) []string {
	var out []string
	for i, j := 0, 0; i < len(orig) && j < len(redacted); {
		if !strings.HasPrefix(redacted[j:], "****") || strings.HasPrefix(orig[i:], "****") {
			i, j = i+1, j+1
			continue
		}
		// The password runs in orig until the text that follows the mask.
		tail := redacted[j+4:]
		next := len(tail)
		if k := strings.Index(tail, "****"); k >= 0 {
			next = k
		}
		follow := tail[:min(next, 1)]
		end := len(orig)
		if follow != "" {
			if k := strings.Index(orig[i:], follow); k >= 0 {
				end = i + k
			}
		}
		if pw := orig[i:end]; pw != "" {
			out = append(out, pw)
		}
		i, j = end, j+4
	}
	return out
}

// maskEqualParts masks, in a redacted value, every other part whose text
// is a password of it (postgres://kitsune:****@db/kitsune: the user and
// the database too, trial 10 W3), as a whole word, but not the scheme
// (a password "postgres" in postgres://).
func maskEqualParts(s string, pws []string) string {
	for _, pw := range pws {
		if pw == "" || pw == "****" {
			continue
		}
		for i := 0; ; {
			k := strings.Index(s[i:], pw)
			if k < 0 {
				break
			}
			k += i
			end := k + len(pw)
			word := (k == 0 || !redactWordByte(s[k-1])) && (end == len(s) || !redactWordByte(s[end]))
			scheme := schemeAfterRE.MatchString(s[end:])
			if word && !scheme {
				s = s[:k] + "****" + s[end:]
				i = k + 4
				continue
			}
			i = k + 1
		}
	}
	return s
}

// schemeAfterRE is what follows a URL scheme or a dialect prefix
// (postgres://, postgresql+asyncpg://, jdbc:postgresql:, pgsql:host=).
var schemeAfterRE = regexp.MustCompile(`^(?:\+[\w.+-]*)?://|^:[a-z]+[:=/]`)

func redactWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// passwordKeyRE finds the value after a key that names a secret in any
// dialect's key=value grammar: libpq (password, sslpassword,
// oauth_client_secret), pgjdbc (password, sslpassword), Npgsql (Password,
// PSW, PWD, SSL Password, SslPassword), PDO. A quoted value is masked
// between its quotes; an unquoted one up to the next separator of any of
// those grammars (& ; whitespace), erring on the side of hiding too much.
var passwordKeyRE = regexp.MustCompile(`(?i)((?:^|[^A-Za-z0-9_])(?:ssl ?password|ssl_password|password|passwd|pwd|psw|oauth_client_secret)\s*=\s*)('(?:[^'\\]|''|\\.)*'?|"(?:[^"]|"")*"?|[^&;\s]*)`)

// redactBackstop masks, in any text, the userinfo password of a URL whatever
// its scheme (a reference may stand for the scheme, a vendor may name it)
// and the value after a password keyword. Masked text stays masked, so
// running it twice changes nothing.
func redactBackstop(s string) string {
	s = redactUserinfo(s)
	return passwordKeyRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := passwordKeyRE.FindStringSubmatch(m)
		v := sub[2]
		switch {
		case v == "" || v == "****" || v == "'****'" || v == `"****"`:
			return m
		case v[0] == '\'' || v[0] == '"':
			return sub[1] + v[:1] + "****" + v[:1]
		}
		return sub[1] + "****"
	})
}

// redactUserinfo masks the password of every URL's userinfo in s: after
// "://", from the first ':' to the '@' that ends the userinfo. libpq ends
// the userinfo at the first '@' before any '/'; the last '@' before the
// first '/' is taken (hiding more), or, with no '@' there, the last '@'
// before the first '?' or whitespace (a password holding '/').
func redactUserinfo(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		rest := s[i+3:]
		end := len(rest)
		if j := strings.IndexAny(rest, " \t\r\n"); j >= 0 {
			end = j
		}
		auth := rest[:end]
		at := -1
		if j := strings.IndexByte(auth, '/'); j >= 0 {
			at = strings.LastIndexByte(auth[:j], '@')
		}
		if at < 0 {
			q := len(auth)
			if j := strings.IndexByte(auth, '?'); j >= 0 {
				q = j
			}
			at = strings.LastIndexByte(auth[:q], '@')
		}
		if at >= 0 {
			if c := strings.IndexByte(auth[:at], ':'); c >= 0 && auth[c+1:at] != "****" && c+1 < at {
				b.WriteString(auth[:c+1] + "****")
				rest = rest[at:]
			}
		}
		s = rest
	}
}

// RedactErr is err's text with the passwords of connection values in it
// masked (jdbc.Redact, then libpq.Redact): parser errors quote the value.
func RedactErr(err error) string {
	return libpq.Redact(jdbc.Redact(err.Error()))
}
