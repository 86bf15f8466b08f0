package jdbc

import (
	"fmt"
	"regexp"
	"strings"
)

// Note codes.
const (
	// CodeSSLDropped: an SSL setting was removed because pgjdbc fails over a
	// Unix socket when SSL is required.
	CodeSSLDropped = "UDS103"
)

const (
	paramSocketFactory    = "socketFactory"
	paramSocketFactoryArg = "socketFactoryArg"
)

// sslRequired reports whether the parameter makes pgjdbc require SSL
// (SslMode.of: sslmode compared case-insensitively; without sslmode, "ssl",
// "ssl=" or "ssl=true" mean verify-full), and whether its value comes from a
// compose variable so that it cannot be judged.
func sslRequired(p Param) (required, unknown bool) {
	v := decode(p.Value)
	switch p.Key {
	case "sslmode":
		if hasPlaceholder(v) {
			return false, true
		}
		switch strings.ToLower(v) {
		case "require", "verify-ca", "verify-full":
			return true, false
		}
	case "ssl":
		if hasPlaceholder(v) {
			return false, true
		}
		if p.bare || v == "" || strings.EqualFold(v, "true") {
			return true, false
		}
	}
	return false, false
}

// ToSocket rewrites a pgjdbc URL to connect through junixsocket to the
// PostgreSQL socket file socketFile (for example
// "/var/run/postgresql/.s.PGSQL.5432"; it must be an absolute path to the
// socket FILE, not its directory):
//
//   - the host becomes exactly "localhost" (junixsocket refuses any other
//     host); the port is kept as written, or left out if there was none
//     (pgjdbc ignores it for the connection);
//   - "jdbc:postgresql:db", "jdbc:postgresql:/" and the empty-authority forms
//     become "jdbc:postgresql://localhost/db" (a '/' inside a database name of
//     the short form is written %2F, which pgjdbc decodes back);
//   - sslmode=require|verify-ca|verify-full and ssl / ssl= / ssl=true are
//     removed, with one Note of code UDS103 (pgjdbc fails with "The server
//     does not support SSL." over a Unix socket); sslmode=disable, allow and
//     prefer are kept. An SSL setting whose value comes from a variable is
//     kept, with a UDS103 note asking to check it;
//   - existing socketFactory and socketFactoryArg parameters are removed and
//     socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=<socketFile>
//     is appended ('?' added when there was no query, '&' otherwise, and a
//     trailing empty token reused). The '$' is a single literal '$': the
//     caller escapes it for compose. In socketFile only '%', '+' and '&' are
//     percent-encoded, since pgjdbc would misread them.
//
// Every other byte stays as written: parameter order, percent-encoding and
// case. A URL already in that socket form for socketFile (localhost host,
// one socketFactory naming $FactoryArg, one socketFactoryArg naming
// socketFile, both compared decoded, no SSL requirement) is returned
// unchanged, so ToSocket(ToSocket(x)) == ToSocket(x).
//
// Errors: ErrNotPostgres, ErrSyntax (from Parse), ErrMultiHost when the URL
// lists more than one host, and a plain error for an invalid socketFile.
func ToSocket(s, socketFile string) (string, []Note, error) {
	if !strings.HasPrefix(socketFile, "/") {
		return "", nil, fmt.Errorf("jdbc: socket file %q is not an absolute path", socketFile)
	}
	u, err := Parse(s)
	if err != nil {
		return "", nil, err
	}
	if len(u.Hosts) > 1 {
		return "", nil, ErrMultiHost
	}

	var dropped, unknown []string
	for _, p := range u.Params {
		req, unk := sslRequired(p)
		if req {
			dropped = append(dropped, p.String())
		}
		if unk {
			unknown = append(unknown, p.Key)
		}
	}
	var notes []Note
	if len(dropped) > 0 {
		notes = append(notes, Note{Code: CodeSSLDropped, Message: fmt.Sprintf(
			"removed %s: pgjdbc fails with \"The server does not support SSL.\" over a Unix socket (sslmode=disable, allow and prefer connect)",
			strings.Join(dropped, ", "))})
	}
	if len(unknown) > 0 {
		notes = append(notes, Note{Code: CodeSSLDropped, Message: fmt.Sprintf(
			"kept %s, set from a variable: if it requires SSL (sslmode=require, verify-ca, verify-full or ssl=true), pgjdbc fails with \"The server does not support SSL.\" over a Unix socket",
			strings.Join(unknown, ", "))})
	}

	if len(dropped) == 0 && u.isSocketForm(socketFile) {
		return s, notes, nil
	}

	v := *u
	port := ""
	if len(u.Hosts) == 1 {
		port = u.Hosts[0].Port
	}
	v.Hosts = []Host{{Name: "localhost", Port: port}}
	if !u.HasAuthority {
		v.Database = strings.ReplaceAll(u.Database, "/", "%2F")
	}
	v.HasAuthority = true
	v.HasSlash = true
	params := make([]Param, 0, len(u.Params)+2)
	for _, p := range u.Params {
		if req, _ := sslRequired(p); req {
			continue
		}
		if p.Key == paramSocketFactory || p.Key == paramSocketFactoryArg {
			continue
		}
		params = append(params, p)
	}
	if n := len(params); n > 0 && params[n-1].bare && params[n-1].Key == "" {
		params = params[:n-1] // reuse a trailing '&'
	}
	params = append(params,
		Param{Key: paramSocketFactory, Value: FactoryArg},
		Param{Key: paramSocketFactoryArg, Value: encodeValue(socketFile)})
	v.Params = params
	v.HasQuery = true
	return v.String(), notes, nil
}

// isSocketForm reports whether u is already the junixsocket $FactoryArg form
// for socketFile.
func (u *URL) isSocketForm(socketFile string) bool {
	if !u.HasAuthority || !u.HasSlash || len(u.Hosts) != 1 || u.Hosts[0].Name != "localhost" {
		return false
	}
	var nFactory, nArg int
	for _, p := range u.Params {
		switch p.Key {
		case paramSocketFactory:
			if p.bare || decode(p.Value) != FactoryArg {
				return false
			}
			nFactory++
		case paramSocketFactoryArg:
			if p.bare || decode(p.Value) != socketFile {
				return false
			}
			nArg++
		}
	}
	return nFactory == 1 && nArg == 1
}

// encodeValue percent-encodes the bytes java.net.URLDecoder or the '&'
// splitter would misread, and nothing else.
func encodeValue(s string) string {
	if !strings.ContainsAny(s, "%+&") {
		return s
	}
	r := strings.NewReplacer("%", "%25", "+", "%2B", "&", "%26")
	return r.Replace(s)
}

// FromSocket is the inverse of ToSocket, for reverting a migration: it drops
// the socketFactory and socketFactoryArg parameters and points the URL at
// host (and port, when not ""), keeping everything else as written. The '?'
// disappears when no parameter is left. An IPv6 host may be given with or
// without brackets. It does not restore SSL settings that ToSocket removed.
//
// Errors: those of Parse, ErrMultiHost, and a plain error for an empty or
// invalid host or port.
func FromSocket(s string, host, port string) (string, error) {
	if host == "" || strings.ContainsAny(host, ",/?@&") {
		return "", fmt.Errorf("jdbc: invalid host %q", host)
	}
	if strings.IndexByte(host, ':') >= 0 && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	if h, err := parseHost(host); err != nil || h.Port != "" {
		return "", fmt.Errorf("jdbc: invalid host %q", host)
	}
	if port != "" {
		if err := checkPort(port); err != nil {
			return "", fmt.Errorf("jdbc: invalid port %q", port)
		}
	}
	u, err := Parse(s)
	if err != nil {
		return "", err
	}
	if len(u.Hosts) > 1 {
		return "", ErrMultiHost
	}
	v := *u
	v.Hosts = []Host{{Name: host, Port: port}}
	if !u.HasAuthority {
		v.Database = strings.ReplaceAll(u.Database, "/", "%2F")
	}
	v.HasAuthority = true
	v.HasSlash = true
	params := make([]Param, 0, len(u.Params))
	for _, p := range u.Params {
		if p.Key != paramSocketFactory && p.Key != paramSocketFactoryArg {
			params = append(params, p)
		}
	}
	if len(params) == 0 && len(u.Params) > 0 {
		v.HasQuery = false
	}
	v.Params = params
	return v.String(), nil
}

// Redacted replaces a password in Redact's output.
const Redacted = "****"

func isSecretKey(k string) bool {
	return strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword")
}

var (
	looseParam    = regexp.MustCompile(`(?i)((?:^|[?&])(?:ssl)?password=)[^&]*`)
	looseUserinfo = regexp.MustCompile(`^(jdbc:[^/]*//[^/?@:]*:).*@`)
)

// Redact returns s with the values of password and sslpassword parameters
// (key compared case-insensitively) replaced by "****". Everything else is
// kept as written. A string Parse rejects is redacted textually: the same
// parameters anywhere after '?', and a "user:password@" that some people
// write (and pgjdbc rejects) in the authority.
func Redact(s string) string {
	if u, err := Parse(s); err == nil {
		for i, p := range u.Params {
			if !p.bare && p.Value != "" && isSecretKey(p.Key) {
				u.Params[i].Value = Redacted
			}
		}
		return u.String()
	}
	out := looseUserinfo.ReplaceAllString(s, "${1}"+Redacted+"@")
	if q := strings.IndexByte(out, '?'); q >= 0 {
		out = out[:q] + looseParam.ReplaceAllString(out[q:], "${1}"+Redacted)
	}
	return out
}
