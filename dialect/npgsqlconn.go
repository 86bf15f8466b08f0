package dialect

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Npgsql reads its connection string with .NET's DbConnectionStringBuilder
// (NpgsqlConnectionStringBuilder derives from it; npgsql/npgsql
// src/Npgsql/NpgsqlConnectionStringBuilder.cs), whose grammar is
// DbConnectionOptions.GetKeyValuePair (dotnet/SqlClient
// src/Microsoft.Data.SqlClient/src/Microsoft/Data/Common/DbConnectionOptions.Common.cs,
// the same parser as System.Data.Common):
//   - pairs are separated by ';'; whitespace and ';' before a keyword are skipped;
//   - a keyword runs to '=' ("==" is a literal '='), trailing whitespace
//     trimmed, compared case-insensitively;
//   - a value starting with ' or " runs to the matching quote, a doubled
//     quote standing for one; only whitespace may follow before ';';
//   - any other value runs to ';', trimmed, and must not end in a quote;
//   - an unbalanced quote is a syntax error (ArgumentException).

// npgsqlPair is one keyword=value pair of an Npgsql connection string.
type npgsqlPair struct {
	key        string // lower-cased, trailing whitespace trimmed
	value      string // decoded: quotes removed, doubled quotes undone
	start, end int    // the value as written (quotes included)
}

// npgsqlSyntaxError is a connection string .NET rejects; Off is the byte
// offset where the offending pair starts.
type npgsqlSyntaxError struct {
	Off int
	Msg string
}

func (e *npgsqlSyntaxError) Error() string {
	return fmt.Sprintf("%s at character %d", e.Msg, e.Off+1)
}

func isNetSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// npgsqlPairs splits s into its pairs by the rules above.
func npgsqlPairs(s string) ([]npgsqlPair, error) {
	var pairs []npgsqlPair
	i := 0
	for {
		for i < len(s) && (s[i] == ';' || isNetSpace(s[i])) {
			i++
		}
		if i >= len(s) {
			return pairs, nil
		}
		key, next, err := npgsqlKey(s, i)
		if err != nil {
			return nil, err
		}
		p, next, err := npgsqlValue(s, next)
		if err != nil {
			return nil, err
		}
		p.key = key
		pairs = append(pairs, p)
		i = next
	}
}

// npgsqlKey reads the keyword starting at i and returns it with the offset
// after its '='.
func npgsqlKey(s string, i int) (string, int, error) {
	var key strings.Builder
	for start := i; ; {
		if i >= len(s) {
			return "", 0, &npgsqlSyntaxError{start, "keyword without \"=\""}
		}
		if s[i] == '=' {
			if i+1 < len(s) && s[i+1] == '=' {
				key.WriteByte('=')
				i += 2
				continue
			}
			k := strings.ToLower(strings.TrimRight(key.String(), " \t\r\n\v\f"))
			if k == "" {
				return "", 0, &npgsqlSyntaxError{start, "empty keyword before \"=\""}
			}
			return k, i + 1, nil
		}
		key.WriteByte(s[i])
		i++
	}
}

// npgsqlValue reads the value starting at i (after '=') and returns it
// with the offset where the next pair may start.
func npgsqlValue(s string, i int) (npgsqlPair, int, error) {
	for i < len(s) && isNetSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		return npgsqlQuoted(s, i)
	}
	end := len(s)
	if j := strings.IndexByte(s[i:], ';'); j >= 0 {
		end = i + j
	}
	next := end
	for end > i && isNetSpace(s[end-1]) {
		end--
	}
	v := s[i:end]
	if strings.HasSuffix(v, "'") || strings.HasSuffix(v, `"`) {
		return npgsqlPair{}, 0, &npgsqlSyntaxError{i, "unbalanced quote: an unquoted value must not end in a quote"}
	}
	return npgsqlPair{value: v, start: i, end: end}, next, nil
}

// npgsqlQuoted reads the quoted value starting at i.
func npgsqlQuoted(s string, i int) (npgsqlPair, int, error) {
	q, start := s[i], i
	var val strings.Builder
	for i++; i < len(s); i++ {
		if s[i] != q {
			val.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			val.WriteByte(q)
			i++
			continue
		}
		end := i + 1
		for i = end; i < len(s) && isNetSpace(s[i]); i++ {
		}
		if i < len(s) && s[i] != ';' {
			return npgsqlPair{}, 0, &npgsqlSyntaxError{start, "unbalanced quote: text after the closing quote"}
		}
		return npgsqlPair{value: val.String(), start: start, end: end}, i, nil
	}
	return npgsqlPair{}, 0, &npgsqlSyntaxError{start, fmt.Sprintf("unterminated %c-quoted value", q)}
}

// npgsqlQuote writes v as a value that reads back as v: bare when it has
// nothing the grammar treats specially, else double-quoted.
func npgsqlQuote(v string) string {
	if v != "" && !strings.ContainsAny(v, `;'"=`) && !isNetSpace(v[0]) && !isNetSpace(v[len(v)-1]) {
		return v
	}
	return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
}

// npgsqlSplitHostPort splits "db:5433" (and "[::1]:5433") as Npgsql does
// when Host names one TCP host (NpgsqlConnectionStringBuilder
// PostProcessAndValidate/TrySplitHostPort): the port written there then
// replaces Port=. A socket directory (starting with / or @) is not split.
func npgsqlSplitHostPort(h string) (host, port string) {
	if h == "" || h[0] == '/' || h[0] == '@' {
		return h, ""
	}
	i := strings.LastIndexByte(h, ':')
	if i < 0 {
		return h, ""
	}
	other := strings.LastIndexByte(h[:i], ':')
	end := strings.LastIndexByte(h, ']')
	if other == -1 || i > end && other < end {
		if _, err := strconv.Atoi(h[i+1:]); err == nil {
			return strings.TrimSuffix(strings.TrimPrefix(h[:i], "["), "]"), h[i+1:]
		}
	}
	return h, ""
}

// npgsqlLikeRE tells a string meant as an Npgsql/PDO connection string
// (one that names a host) from other text with ';' and '='.
var npgsqlLikeRE = regexp.MustCompile(`(?i)(?:^|;)\s*(?:host|server)\s*=`)

// npgsqlPGKeyRE finds a keyword only a database connection string has
// beside its Host/Server: the database, the user or the password. A
// semicolon string with a host and none of them is some other program's
// (NBitcoin's RPC string server=http://bitcoind:43782;USER:PASSWORD).
var npgsqlPGKeyRE = regexp.MustCompile(`(?i)(?:^|;)\s*(?:database|db|dbname|initial catalog|username|user ?name|user ?id|uid|user|password|psw|pwd)\s*=`)

// npgsqlLooseHostRE reads the Host/Server value of a string that does
// not parse.
var npgsqlLooseHostRE = regexp.MustCompile(`(?i)(?:^|;)\s*(?:host|server)\s*=\s*([^;]*)`)

// npgsqlSyntax returns the syntax error of a value that is meant as an
// Npgsql connection string (a Host or Server and a database, user or
// password keyword) but does not parse (an unbalanced quote), or nil.
func npgsqlSyntax(s string) error {
	s = strings.TrimPrefix(s, "pgsql:")
	if !strings.Contains(s, ";") || !npgsqlLikeRE.MatchString(s) || !npgsqlPGKeyRE.MatchString(s) {
		return nil
	}
	_, err := npgsqlPairs(s)
	return err
}

// UnkeyedNpgsql returns, for a semicolon string with a Host or Server but
// no database, user or password keyword that does not parse, the host it
// names and the syntax error: it is a connection value only when that
// host is a PostgreSQL service, which the caller knows. err is nil for
// any other value.
func UnkeyedNpgsql(s string) (host string, err error) {
	if !strings.Contains(s, ";") || !npgsqlLikeRE.MatchString(s) || npgsqlPGKeyRE.MatchString(s) {
		return "", nil
	}
	if _, err = npgsqlPairs(s); err == nil {
		return "", nil
	}
	m := npgsqlLooseHostRE.FindStringSubmatch(s)
	if m == nil {
		return "", nil
	}
	h, _ := npgsqlSplitHostPort(strings.TrimSpace(m[1]))
	return h, err
}

// npgsqlSecretKeys are the keywords whose value is a secret: Password and
// its synonyms PSW and PWD, and SSL Password (the client key's password),
// also spelt by its property name SslPassword (npgsql/npgsql
// src/Npgsql/NpgsqlConnectionStringBuilder.cs: [NpgsqlConnectionStringProperty("PSW", "PWD")]
// on Password, [DisplayName("SSL Password")] on SslPassword; keywords are
// the display name, the property name and the aliases).
var npgsqlSecretKeys = map[string]bool{"password": true, "psw": true, "pwd": true, "ssl password": true, "sslpassword": true}

// npgsqlLoosePasswordRE masks the secrets of a string the parser rejects,
// erring on the side of hiding too much: an unterminated quote hides the
// rest of the string.
var npgsqlLoosePasswordRE = regexp.MustCompile(`(?i)((?:^|;)\s*(?:password|psw|pwd|ssl ?password)\s*=\s*)(?:'(?:[^']|'')*'?|"(?:[^"]|"")*"?|[^;]*)`)

// npgsqlRedact masks the value of every secret keyword.
func npgsqlRedact(s string) string {
	pairs, err := npgsqlPairs(s)
	if err != nil {
		return npgsqlLoosePasswordRE.ReplaceAllString(s, "${1}****")
	}
	for i := len(pairs) - 1; i >= 0; i-- {
		if p := pairs[i]; npgsqlSecretKeys[p.key] && p.value != "" {
			s = s[:p.start] + "****" + s[p.end:]
		}
	}
	return s
}
