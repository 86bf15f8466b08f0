package libpq

import (
	"regexp"
	"strings"
)

var (
	looseURIParam = regexp.MustCompile(`(?i)((?:^|[?&])(?:(?:ssl)?password|oauth_client_secret)=)[^&]*`)
	looseDSNParam = regexp.MustCompile(`(?i)((?:^|\s)(?:(?:ssl)?password|oauth_client_secret)\s*=\s*)(?:'(?:[^'\\]|\\.)*'?|(?:[^\s\\]|\\.)*\\?)`)
)

// Redact returns s with every password replaced by "****": in a URI, the
// password of the userinfo and the values of password, sslpassword and
// oauth_client_secret parameters; in a keyword/value string, the values of
// those keywords (a quoted value stays quoted). Keys are compared
// case-insensitively. Everything else is kept as written.
//
// A string the parsers reject is redacted textually, erring on the side of
// hiding too much: in a URI, everything between the first ':' of the
// userinfo and the last '@'; elsewhere, the value after any
// password/sslpassword/oauth_client_secret key.
func Redact(s string) string {
	if IsURI(s) {
		if u, err := ParseURI(s); err == nil {
			if u.HasUserinfo {
				if user, pw, ok := strings.Cut(u.Userinfo, ":"); ok && pw != "" {
					u.Userinfo = user + ":" + Redacted
					if _, err := ParseURI(u.String()); err != nil {
						// A '%' before a ${VAR} placeholder in the password
						// was literal; without the placeholder it would be
						// a broken escape: write it as %25.
						u.Userinfo = strings.ReplaceAll(user, "%", "%25") + ":" + Redacted
					}
				}
			}
			for i, p := range u.Params {
				if !p.bare && p.Value != "" && isSecretKey(decode(p.Key)) {
					u.Params[i].Value = Redacted
				}
			}
			return u.String()
		}
		return redactURILoose(s)
	}
	if d, err := ParseDSN(s); err == nil {
		for i, it := range d.items {
			if it.opaque || !isSecretKey(it.key) || unquote(it.raw) == "" {
				continue
			}
			if strings.HasPrefix(it.raw, "'") {
				d.items[i].raw = "'" + Redacted + "'"
			} else {
				d.items[i].raw = Redacted
			}
		}
		return d.String()
	}
	return looseDSNParam.ReplaceAllString(s, "${1}"+Redacted)
}

func redactURILoose(s string) string {
	i := strings.Index(s, "://") + 3
	head, rest := s[:i], s[i:]
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		if c := strings.IndexByte(rest[:at], ':'); c >= 0 {
			rest = rest[:c+1] + Redacted + rest[at:]
		}
	}
	return head + looseURIParam.ReplaceAllString(rest, "${1}"+Redacted)
}
