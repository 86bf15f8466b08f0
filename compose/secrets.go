package compose

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
)

// Passwords never leave the tool in a finding, change or error: every
// message is built with the dialect redactors (redact), and, as a second
// line, every password written anywhere in the project is masked in the
// finished messages (scrub), whatever code path quoted it.

var (
	// A password after a key that names one: password=x (JDBC, DSN),
	// Password=x; (Npgsql, PDO), "password": "x".
	// Npgsql also takes PSW and "SSL Password" (npgsqlSecretKeys).
	// The value is on the key's line: `db_password:` with a mapping
	// below (compose's secrets:) holds none.
	secretKeyRE = regexp.MustCompile(`(?i)(?:password|passwd|pwd|psw)["']?[ \t]*[=:][ \t]*["']?([^\s"';&,}\]]+)`)
	// A quoted password (Npgsql/ADO.NET 'a;b' or "a""b", libpq 'a b'): the
	// whole text between the quotes, which the pattern above cuts short.
	secretQuotedRE = []*regexp.Regexp{
		regexp.MustCompile(`(?i)(?:password|passwd|pwd|psw)\s*=\s*'((?:[^'\\\n]|''|\\.)*)'`),
		regexp.MustCompile(`(?i)(?:password|passwd|pwd|psw)\s*=\s*"((?:[^"\n]|"")*)"`),
	}
	// The password of a URL's userinfo, any scheme, also one a reference
	// stands for (${DB_SCHEME:-postgresql}://u:pw@db).
	secretUserinfoRE = regexp.MustCompile(`://[^\s:/@"'\[\]]*:([^\s/@"']+)@`)
	// The password of an address without a scheme, a word of its own
	// (Nakama's --database.address USER:PASSWORD@HOST:PORT/DB): a host,
	// an optional port and a '/' must follow, so an image's tag@digest is
	// none.
	secretSchemelessRE = regexp.MustCompile(`(?:^|[\s"'=])[A-Za-z0-9_.%-]+:([^\s/@"':]+)@[A-Za-z0-9_.-]+(?::[0-9]{1,5})?/`)
	// Variables whose whole value is a secret (PGPASSWORD, DB_PASSWORD,
	// POSTGRES_PASSWORD, *_SECRET).
	secretVarRE = regexp.MustCompile(`(?i)(PASSWORD|PASSWD|PWD|SECRET)$`)
)

// shellDirVars end in PWD but hold the shell's working directories, not a
// password: masking them would mask the project's path in every message.
var shellDirVars = map[string]bool{"PWD": true, "OLDPWD": true}

// SecretVar reports whether a variable (or a configuration key:
// spring.datasource.password) holds a secret as its whole value.
func SecretVar(key string) bool { return secretVarRE.MatchString(key) && !shellDirVars[key] }

// MinSecret is the shortest password scrub masks wherever it occurs; a
// shorter one ("pw") is masked only where it stands as a whole word
// (scrubShort), so that it cannot mask parts of ordinary words.
const MinSecret = 4

// secretsIn counts the passwords written in text.
func secretsIn(text string, into map[string]int) {
	for _, re := range []*regexp.Regexp{secretKeyRE, secretUserinfoRE, secretSchemelessRE} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			into[m[1]]++
		}
	}
	for _, re := range secretQuotedRE {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			into[m[1]]++
			for _, q := range []string{"'", `"`} {
				if d := strings.ReplaceAll(m[1], q+q, q); d != m[1] {
					into[d]++ // the decoded password, as a parser hands it on
				}
			}
		}
	}
}

// Secrets lists the passwords of a loaded project: in its files as
// written, in the values compose computes (env files, interpolation), and
// the whole values of password variables.
func (p *Project) Secrets() []string {
	set := map[string]int{}
	for _, src := range append(append([]*Source{}, p.Sources...), p.ExtSources...) {
		secretsIn(string(src.Data), set)
	}
	// The env files are read as the compose files are.
	for _, data := range envFileTexts(p) {
		secretsIn(string(data), set)
	}
	extra := map[string]int{}
	addVar := func(k, v string) {
		secretsIn(v, extra)
		if SecretVar(k) {
			extra[v]++
		}
	}
	for k, v := range p.Env {
		addVar(k, v)
	}
	if p.Model != nil {
		for _, svc := range p.Model.Services {
			for k, v := range svc.Environment {
				if v != nil {
					addVar(k, *v)
				}
			}
		}
	}
	for s, n := range extra {
		set[s] += n
	}
	if p.Model != nil {
		// A password equal to a service name, or part of one
		// (POSTGRES_PASSWORD: zammad beside zammad-postgresql), is printed
		// by every finding's and plan's service field, which masking by
		// text does not reach: it is no secret there, and masking it in
		// messages would only garble the names; the dialect redactors
		// still mask it where it stands as a password.
		for s := range set {
			for name := range p.Model.Services {
				if s == name || len(s) >= MinSecret && strings.Contains(name, s) {
					delete(set, s)
				}
			}
		}
	}
	return secretList(set)
}

// envFileTexts are the contents of the project's env files: the
// interpolation files (.env, --env-file) and every service's env_file:,
// each once.
func envFileTexts(p *Project) [][]byte {
	var paths []string
	for _, f := range p.Origin {
		paths = append(paths, f)
	}
	if p.Model != nil {
		for _, svc := range p.Model.Services {
			for _, ef := range svc.EnvFiles {
				paths = append(paths, p.DisplayPath(ef.Path))
			}
		}
	}
	seen := map[string]bool{}
	var out [][]byte
	for _, f := range paths {
		abs, err := filepath.Abs(f)
		if err != nil || seen[abs] || p.Escapes(f) != nil {
			continue
		}
		seen[abs] = true
		if data, err := p.ReadFile(f); err == nil {
			out = append(out, data)
		}
	}
	return out
}

// InputSecrets lists the passwords written in the input files (for errors
// raised before a project is loaded).
func InputSecrets(inputs []Input) []string {
	set := map[string]int{}
	for _, in := range inputs {
		secretsIn(string(in.Data), set)
	}
	return secretList(set)
}

// secretList keeps the secrets to mask by text: every password found,
// also where the same text is the user's or the database's name
// (postgres://kitsune:kitsune@db/kitsune: each occurrence is masked,
// trial 10 W3), except the words of the tool's own messages (a password
// "postgres" or "password": masking them would garble every message and
// hide nothing) and the names the caller leaves out (service names, which
// findings carry in their own fields). count is how often each was found
// as a password.
func secretList(count map[string]int) []string {
	var out []string
	for s := range count {
		if s != "" && !strings.Contains(s, "*") && !ToolWord(s) {
			out = append(out, s)
		}
	}
	// Longest first, so a password that contains another is masked whole.
	sort.Slice(out, func(i, j int) bool {
		return len(out[i]) > len(out[j]) || (len(out[i]) == len(out[j]) && out[i] < out[j])
	})
	return out
}

// Scrub masks every secret in s.
func Scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		switch {
		case !strings.Contains(s, sec):
		case len(sec) < MinSecret:
			s = scrubShort(s, sec)
		default:
			s = strings.ReplaceAll(s, sec, "****")
		}
	}
	return s
}

// scrubShort masks each whole-word occurrence of a short secret.
func scrubShort(s, sec string) string {
	at := wordAt(s, sec)
	for i := len(at) - 1; i >= 0; i-- {
		s = s[:at[i]] + "****" + s[at[i]+len(sec):]
	}
	return s
}

// wordAt returns the offsets where sec occurs in s not touching a letter,
// digit or underscore on either side.
func wordAt(s, sec string) []int {
	var at []int
	for i := 0; ; {
		j := strings.Index(s[i:], sec)
		if j < 0 {
			return at
		}
		j += i
		if (j == 0 || !wordByte(s[j-1])) && (j+len(sec) == len(s) || !wordByte(s[j+len(sec)])) {
			at = append(at, j)
		}
		i = j + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// ScrubFindings masks secrets in the findings' texts: the message and
// what the basis says.
func ScrubFindings(fs []finding.Finding, secrets []string) {
	for i := range fs {
		fs[i].Message = Scrub(fs[i].Message, secrets)
		fs[i].Basis = scrubBasis(fs[i].Basis, secrets)
	}
}

// ScrubChanges masks secrets in the changes' texts.
func ScrubChanges(cs []finding.Change, secrets []string) {
	for i := range cs {
		cs[i].Before = Scrub(cs[i].Before, secrets)
		cs[i].After = Scrub(cs[i].After, secrets)
		cs[i].Reason = Scrub(cs[i].Reason, secrets)
		cs[i].Basis = scrubBasis(cs[i].Basis, secrets)
	}
}

// scrubBasis returns b with its texts masked (a copy: a basis may be
// shared by several findings and changes). A catalogue family or a cited
// URL equal to a password ("gitea" for user, database and password) is
// masked too: plan --format json prints them beside the message.
func scrubBasis(b *finding.Basis, secrets []string) *finding.Basis {
	if b == nil {
		return nil
	}
	c := *b
	c.Name, c.Detail = Scrub(c.Name, secrets), Scrub(c.Detail, secrets)
	c.Cite = nil
	for _, s := range b.Cite {
		c.Cite = append(c.Cite, Scrub(s, secrets))
	}
	return &c
}

// toolWords are words the tool's own messages use: a password equal to one
// ("password", "postgres") is not masked by text, or every message would
// lose that word while the reader learns nothing from it.
var toolWords = func() map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.Fields("password postgres postgresql socket database localhost disable require prefer secret") {
		words[w] = true
	}
	for _, c := range finding.Codes() {
		if c.ID == finding.InputErrorCode {
			continue // its title is not in the messages this package writes
		}
		for _, w := range strings.FieldsFunc(c.Title, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) {
			words[strings.ToLower(w)] = true
		}
	}
	return words
}()

// ToolWord reports whether s is a word of the tool's own messages, which
// Scrub does not mask by text.
func ToolWord(s string) bool { return toolWords[strings.ToLower(s)] }
