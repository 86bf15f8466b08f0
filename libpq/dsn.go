package libpq

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/uds-migrate/uds-migrate/internal/interp"
)

// Keywords lists the connection keywords of libpq (PostgreSQL 18 docs,
// "Parameter Key Words") plus a few that pgx and lib/pq accept in the same
// keyword/value syntax (pool_*, statement/description cache, krbspn,
// servicefile, binary_parameters). IsDSN only accepts strings made of these.
var Keywords = map[string]bool{
	// libpq
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true,
	"password": true, "passfile": true, "require_auth": true, "channel_binding": true,
	"connect_timeout": true, "client_encoding": true, "options": true,
	"application_name": true, "fallback_application_name": true, "keepalives": true,
	"keepalives_idle": true, "keepalives_interval": true, "keepalives_count": true,
	"tcp_user_timeout": true, "replication": true, "gssencmode": true, "sslmode": true,
	"requiressl": true, "sslnegotiation": true, "sslcompression": true, "sslcert": true,
	"sslkey": true, "sslkeylogfile": true, "sslpassword": true, "sslcertmode": true,
	"sslrootcert": true, "sslcrl": true, "sslcrldir": true, "sslsni": true,
	"requirepeer": true, "ssl_min_protocol_version": true, "ssl_max_protocol_version": true,
	"min_protocol_version": true, "max_protocol_version": true, "krbsrvname": true,
	"gsslib": true, "gssdelegation": true, "scram_client_key": true, "scram_server_key": true,
	"service": true, "target_session_attrs": true, "load_balance_hosts": true,
	"oauth_issuer": true, "oauth_client_id": true, "oauth_client_secret": true,
	"oauth_scope": true,
	// pgx / pgxpool
	"krbspn": true, "servicefile": true, "statement_cache_capacity": true,
	"description_cache_capacity": true, "default_query_exec_mode": true,
	"pool_max_conns": true, "pool_min_conns": true, "pool_min_idle_conns": true,
	"pool_max_conn_lifetime": true, "pool_max_conn_lifetime_jitter": true,
	"pool_max_conn_idle_time": true, "pool_health_check_period": true,
	// lib/pq
	"binary_parameters": true,
}

// dsnItem is one token of a keyword/value string with its raw spans:
// lead + key + mid + raw, where mid is the '=' with the blanks around it.
type dsnItem struct {
	lead   string // blanks before the keyword
	key    string
	mid    string // e.g. "=", " = "
	raw    string // value as written, quotes and backslashes included
	opaque bool   // a token made only of placeholder runes, no '='
}

// DSN is a parsed libpq keyword/value connection string
// ("host=pg port=5432 dbname=app"). It keeps every token's raw text, blanks,
// quotes and escapes, so String() reproduces the input byte for byte.
type DSN struct {
	items []dsnItem
	trail string // blanks after the last token
}

// Pair is a keyword and its decoded value.
type Pair struct{ Key, Value string }

func isBlank(c byte) bool {
	// C isspace in the "C" locale, as libpq uses.
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// onlyPlaceholders reports whether s is non-empty and made only of
// placeholder runes.
func onlyPlaceholders(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !interp.IsPlaceholder(r) {
			return false
		}
	}
	return true
}

// ParseDSN parses a keyword/value connection string the way libpq's
// conninfo_parse does: tokens "keyword = value" separated by blanks, with
// blanks allowed around '='; a value is either unquoted (ends at a blank; a
// backslash escapes the next character) or single-quoted (with \' and \\
// escapes). A blank right after '=' is skipped, so "host= pg" sets host to
// "pg", like libpq. An empty string parses to an empty DSN.
//
// In addition, a token made only of placeholder runes and without '=' is
// kept as an opaque token (a compose variable that may expand to more
// keyword/value pairs).
//
// Errors wrap ErrSyntax: a token without '=' (libpq: missing "=" after ...),
// an empty keyword, an unterminated quoted value, a NUL byte (libpq would
// cut the string there; pgx rejects it). Keywords are not checked
// here; see IsDSN.
func ParseDSN(s string) (*DSN, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, syntaxErr("NUL byte in connection string")
	}
	d := &DSN{}
	i, n := 0, len(s)
	for {
		start := i
		for i < n && isBlank(s[i]) {
			i++
		}
		lead := s[start:i]
		if i == n {
			d.trail = lead
			return d, nil
		}
		keyStart := i
		for i < n && s[i] != '=' && !isBlank(s[i]) {
			i++
		}
		key := s[keyStart:i]
		keyEnd := i
		for i < n && isBlank(s[i]) {
			i++
		}
		if i == n || s[i] != '=' {
			if onlyPlaceholders(key) {
				d.items = append(d.items, dsnItem{lead: lead, key: key, opaque: true})
				i = keyEnd
				continue
			}
			return nil, syntaxErr("missing \"=\" after %q", key)
		}
		if key == "" {
			return nil, syntaxErr("empty keyword before \"=\"")
		}
		i++ // '='
		for i < n && isBlank(s[i]) {
			i++
		}
		mid := s[keyEnd:i]
		valStart := i
		if i < n && s[i] == '\'' {
			i++
			for {
				if i >= n {
					return nil, syntaxErr("unterminated quoted string in the value of %q", key)
				}
				if s[i] == '\\' {
					i += 2
					continue
				}
				if s[i] == '\'' {
					i++
					break
				}
				i++
			}
		} else {
			for i < n && !isBlank(s[i]) {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		}
		if i > n {
			i = n
		}
		d.items = append(d.items, dsnItem{lead: lead, key: key, mid: mid, raw: s[valStart:i]})
	}
}

// unquote decodes a raw value: quotes removed, backslash escapes resolved.
func unquote(raw string) string {
	quoted := strings.HasPrefix(raw, "'")
	if quoted {
		raw = strings.TrimSuffix(raw[1:], "'")
	}
	if strings.IndexByte(raw, '\\') < 0 {
		return raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' {
			i++
			if i >= len(raw) {
				break
			}
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// needsQuotes reports whether v must be single-quoted to survive as a value.
func needsQuotes(v string) bool {
	if v == "" {
		return true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; isBlank(c) || c == '\'' || c == '\\' {
			return true
		}
	}
	return false
}

func quote(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(v) + "'"
}

// setValue returns the raw text for v in place of raw: unchanged when raw
// already means v, quoted when raw was quoted or v needs quotes.
func setValue(raw, v string) string {
	if unquote(raw) == v {
		return raw
	}
	if strings.HasPrefix(raw, "'") || needsQuotes(v) {
		return quote(v)
	}
	return v
}

// String formats d. For a DSN returned by ParseDSN it is the parsed input,
// byte for byte.
func (d *DSN) String() string {
	var b strings.Builder
	for _, it := range d.items {
		b.WriteString(it.lead)
		b.WriteString(it.key)
		b.WriteString(it.mid)
		b.WriteString(it.raw)
	}
	b.WriteString(d.trail)
	return b.String()
}

// Get returns the decoded value of keyword key (case-sensitive, as in
// libpq); the last occurrence wins.
func (d *DSN) Get(key string) (string, bool) {
	for i := len(d.items) - 1; i >= 0; i-- {
		if it := d.items[i]; !it.opaque && it.key == key {
			return unquote(it.raw), true
		}
	}
	return "", false
}

// Pairs returns the keyword/value pairs in order, values decoded. Opaque
// placeholder tokens are left out.
func (d *DSN) Pairs() []Pair {
	var ps []Pair
	for _, it := range d.items {
		if !it.opaque {
			ps = append(ps, Pair{Key: it.key, Value: unquote(it.raw)})
		}
	}
	return ps
}

// IsDSN reports whether s is a libpq keyword/value connection string: it
// parses (ParseDSN), every keyword is known (see Keywords), there are at
// least two keyword=value tokens, and one of them is host, hostaddr, dbname
// or user. Opaque placeholder tokens are allowed but do not count.
func IsDSN(s string) bool {
	d, err := ParseDSN(s)
	return err == nil && d.isDSN()
}

func (d *DSN) isDSN() bool {
	pairs, anchor := 0, false
	for _, it := range d.items {
		if it.opaque {
			continue
		}
		if !Keywords[it.key] {
			return false
		}
		pairs++
		switch it.key {
		case "host", "hostaddr", "dbname", "user":
			anchor = true
		}
	}
	return pairs >= 2 && anchor
}

func (d *DSN) remove(i int) {
	if i == 0 && len(d.items) > 1 {
		d.items[1].lead = d.items[0].lead
	}
	d.items = append(d.items[:i], d.items[i+1:]...)
}

// insert puts it before index i, keeping tokens apart: the token now after
// it gets a blank if it had none (it may have followed a quoted value), and
// a value before it that ends in a dangling backslash (only possible at the
// end of the string) is rewritten so that the backslash cannot escape the
// new blank.
func (d *DSN) insert(i int, it dsnItem) {
	if i == 0 && len(d.items) > 0 {
		it.lead, d.items[0].lead = d.items[0].lead, " "
	}
	if i > 0 {
		prev := &d.items[i-1]
		if !prev.opaque && !strings.HasPrefix(prev.raw, "'") && danglingBackslash(prev.raw) {
			prev.raw = setValue("", unquote(prev.raw))
		}
	}
	d.items = append(d.items, dsnItem{})
	copy(d.items[i+1:], d.items[i:])
	d.items[i] = it
	if i+1 < len(d.items) && d.items[i+1].lead == "" {
		d.items[i+1].lead = " "
	}
}

// danglingBackslash reports whether an unquoted raw value ends in an odd
// number of backslashes.
func danglingBackslash(raw string) bool {
	n := 0
	for n < len(raw) && raw[len(raw)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// DSNToSocket rewrites a keyword/value string to connect through the Unix
// socket directory dir with server port port. Only what must change does:
//
//   - every host token's value becomes dir (quoted only if needed, or if it
//     was quoted);
//   - hostaddr tokens are removed (they would force TCP); when there is no
//     host token, the first hostaddr token becomes host=<dir> in place;
//     with neither, "host=<dir> " is put in front;
//   - every port token's value becomes N when it means something else; when
//     there is no port token and N != 5432, " port=N" follows the host token.
//
// TLS settings follow SocketSSLDSN (an sslmode some driver fails on over a
// socket becomes disable, Note UDS104). Every other byte stays identical.
// Idempotent.
//
// Errors: ErrSyntax (from ParseDSN), ErrNotPostgres when s is not a libpq
// keyword/value string (IsDSN), ErrMultiHost when host or hostaddr lists
// several hosts, and a plain error for an invalid dir or port.
func DSNToSocket(s, dir string, port int) (string, []Note, error) {
	if err := checkSocketDir(dir); err != nil {
		return "", nil, err
	}
	if err := checkPortNumber(port); err != nil {
		return "", nil, err
	}
	d, err := ParseDSN(s)
	if err != nil {
		return "", nil, err
	}
	if !d.isDSN() {
		return "", nil, ErrNotPostgres
	}
	if d.multiHost() {
		return "", nil, ErrMultiHost
	}
	notes := d.socketSSL()
	d.pointTo(dir, strconv.Itoa(port), port != DefaultPort, "hostaddr")
	return d.String(), notes, nil
}

// pointTo sets host to host and the port to port; dropKey's tokens are
// removed, and the first of them becomes the host token when there is none.
// addPort says whether a port token is added when there is none.
func (d *DSN) pointTo(host, port string, addPort bool, dropKeys ...string) {
	drop := func(k string) bool {
		for _, dk := range dropKeys {
			if k == dk {
				return true
			}
		}
		return false
	}
	hasHost := false
	for _, it := range d.items {
		if !it.opaque && it.key == "host" {
			hasHost = true
		}
	}
	hostAt := -1
	for i := 0; i < len(d.items); i++ {
		it := &d.items[i]
		if it.opaque {
			continue
		}
		switch {
		case it.key == "host":
			it.raw = setValue(it.raw, host)
			hostAt = i
		case drop(it.key):
			if !hasHost {
				hasHost = true
				it.key, it.raw = "host", setValue("", host)
				hostAt = i
				continue
			}
			d.remove(i)
			i--
		case it.key == "port" && port != "":
			it.raw = setValue(it.raw, port)
		}
	}
	if hostAt < 0 {
		hostAt = 0
		d.insert(0, dsnItem{key: "host", mid: "=", raw: setValue("", host)})
	}
	if _, ok := d.Get("port"); !ok && addPort && port != "" {
		d.insert(hostAt+1, dsnItem{lead: " ", key: "port", mid: "=", raw: port})
	}
}

func (d *DSN) multiHost() bool {
	for _, it := range d.items {
		if !it.opaque && (it.key == "host" || it.key == "hostaddr") &&
			strings.IndexByte(unquote(it.raw), ',') >= 0 {
			return true
		}
	}
	return false
}

// DSNFromSocket is the inverse of DSNToSocket, for reverting a migration:
// the host tokens get the value host (put in front when absent), port tokens get
// port when port > 0 (a port token is added when absent and port is neither
// 0 nor 5432). Every other byte stays identical.
//
// Errors: those of ParseDSN, ErrNotPostgres, ErrMultiHost, and a plain error
// for an empty host or a port outside 0..65535.
func DSNFromSocket(s, host string, port int) (string, error) {
	if host == "" || strings.IndexByte(host, ',') >= 0 || !utf8.ValidString(host) {
		return "", fmt.Errorf("libpq: invalid host %q", host)
	}
	if port != 0 {
		if err := checkPortNumber(port); err != nil {
			return "", err
		}
	}
	d, err := ParseDSN(s)
	if err != nil {
		return "", err
	}
	if !d.isDSN() {
		return "", ErrNotPostgres
	}
	if d.multiHost() {
		return "", ErrMultiHost
	}
	portText := ""
	if port != 0 {
		portText = strconv.Itoa(port)
	}
	d.pointTo(host, portText, port != DefaultPort)
	return d.String(), nil
}
