package jdbc

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Placeholder runes standing for compose references such as ${DB_HOST}.
const (
	ph1 = "\uE000"
	ph2 = "\uE001"
	ph3 = "\uF8FF"
)

const sock = "/var/run/postgresql/.s.PGSQL.5432"

func TestIsJDBC(t *testing.T) {
	for s, want := range map[string]bool{
		"jdbc:postgresql://db/app":   true,
		"jdbc:postgresql:app":        true,
		"jdbc:postgresql:":           true,
		"JDBC:postgresql://db/app":   false, // pgjdbc's prefix check is case-sensitive
		"jdbc:PostgreSQL://db/app":   false,
		"jdbc:mysql://db:3306/app":   false,
		"jdbc:postgres://db/app":     false,
		"postgres://u:p@db:5432/app": false,
		"redis://cache:6379/0":       false,
		"http://users:8080":          false,
		"postgres":                   false,
		"":                           false,
		" jdbc:postgresql://db/app":  false,
	} {
		if got := IsJDBC(s); got != want {
			t.Errorf("IsJDBC(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want URL
	}{
		{"jdbc:postgresql:database", URL{Database: "database"}},
		{"jdbc:postgresql:", URL{}},
		{"jdbc:postgresql:/", URL{HasSlash: true}},
		{"jdbc:postgresql://host/database", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"host", ""}}, Database: "database"}},
		{"jdbc:postgresql://host/", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"host", ""}}}},
		{"jdbc:postgresql://host:5433/database", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"host", "5433"}}, Database: "database"}},
		{"jdbc:postgresql://[::1]:5740/accounting", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"[::1]", "5740"}}, Database: "accounting"}},
		{"jdbc:postgresql://[::1]/accounting", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"[::1]", ""}}, Database: "accounting"}},
		{"jdbc:postgresql://[fe80::1%25eth0]:5432/x", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"[fe80::1%25eth0]", "5432"}}, Database: "x"}},
		{"jdbc:postgresql://h1:5432,h2:5433/db", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"h1", "5432"}, {"h2", "5433"}}, Database: "db"}},
		{"jdbc:postgresql://h1,[::1]:5433,h3/db", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"h1", ""}, {"[::1]", "5433"}, {"h3", ""}}, Database: "db"}},
		{"jdbc:postgresql://", URL{HasAuthority: true}},
		{"jdbc:postgresql:///", URL{HasAuthority: true, HasSlash: true}},
		{"jdbc:postgresql:///db", URL{HasAuthority: true, HasSlash: true, Database: "db"}},
		{"jdbc:postgresql://?service=myservice", URL{HasAuthority: true, HasQuery: true, Params: []Param{{Key: "service", Value: "myservice"}}}},
		{"jdbc:postgresql://h/db?", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"h", ""}}, Database: "db", HasQuery: true}},
		{"jdbc:postgresql://h/my%20db?a=1&B=x%2Fy&c=", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"h", ""}}, Database: "my%20db", HasQuery: true,
			Params: []Param{{Key: "a", Value: "1"}, {Key: "B", Value: "x%2Fy"}, {Key: "c", Value: ""}}}},
		{"jdbc:postgresql://h/db?ssl&&x=1&", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"h", ""}}, Database: "db", HasQuery: true,
			Params: []Param{{Key: "ssl", bare: true}, {bare: true}, {Key: "x", Value: "1"}, {bare: true}}}},
		{"jdbc:postgresql://h/db?options=-c%20a=b&q=what?", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"h", ""}}, Database: "db", HasQuery: true,
			Params: []Param{{Key: "options", Value: "-c%20a=b"}, {Key: "q", Value: "what?"}}}},
		// Placeholders anywhere.
		{"jdbc:postgresql://" + ph1 + ":" + ph2 + "/" + ph3 + "?currentSchema=core", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{ph1, ph2}}, Database: ph3, HasQuery: true,
			Params: []Param{{Key: "currentSchema", Value: "core"}}}},
		{"jdbc:postgresql://db:54" + ph1 + "/app", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"db", "54" + ph1}}, Database: "app"}},
		{"jdbc:postgresql://" + ph1 + "/app?" + ph2 + "=" + ph3 + "&user=" + ph1, URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{ph1, ""}}, Database: "app", HasQuery: true,
			Params: []Param{{Key: ph2, Value: ph3}, {Key: "user", Value: ph1}}}},
		{"jdbc:postgresql://h/db?x=%" + ph1, URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"h", ""}}, Database: "db", HasQuery: true,
			Params: []Param{{Key: "x", Value: "%" + ph1}}}},
		{"jdbc:postgresql:" + ph1, URL{Database: ph1}},
		{"jdbc:postgresql://" + ph1 + "/", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{ph1, ""}}}},
		{"jdbc:postgresql://h:65535/d", URL{HasAuthority: true, HasSlash: true, Hosts: []Host{{"h", "65535"}}, Database: "d"}},
	}
	for _, tt := range tests {
		u, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(*u, tt.want) {
			t.Errorf("Parse(%q)\n got %#v\nwant %#v", tt.in, *u, tt.want)
		}
		if got := u.String(); got != tt.in {
			t.Errorf("Parse(%q).String() = %q", tt.in, got)
		}
	}
}

func TestParseErrors(t *testing.T) {
	notPG := []string{
		"redis://cache:6379/0",
		"http://users:8080",
		"jdbc:mysql://db:3306/app",
		"jdbc:postgres://db/app",
		"JDBC:POSTGRESQL://db/app",
		"postgres://u:p@db/app",
		"postgresql",
		"hello",
		"",
		ph1,
	}
	for _, s := range notPG {
		if _, err := Parse(s); !errors.Is(err, ErrNotPostgres) {
			t.Errorf("Parse(%q) error = %v, want ErrNotPostgres", s, err)
		}
		if _, _, err := ToSocket(s, sock); !errors.Is(err, ErrNotPostgres) {
			t.Errorf("ToSocket(%q) error = %v, want ErrNotPostgres", s, err)
		}
	}
	bad := []string{
		"jdbc:postgresql://host",       // no '/' after host
		"jdbc:postgresql://host:5432",  // no '/' after port
		"jdbc:postgresql://h/db/extra", // too many '/'
		"jdbc:postgresql:/db",          // short form cannot start with '/'
		"jdbc:postgresql://:5432/db",   // empty host in authority with port
		"jdbc:postgresql://h1,,h2/db",  // empty host entry
		"jdbc:postgresql://h1,/db",     // empty host entry
		"jdbc:postgresql://[::1/db",    // unterminated '['
		"jdbc:postgresql://[]:5432/db", // empty IPv6
		"jdbc:postgresql://[::1]x/db",  // junk after ']'
		"jdbc:postgresql://a]b/db",     // stray ']'
		"jdbc:postgresql://a[b/db",     // stray '['
		"jdbc:postgresql://[[::1]]/db", // nested '['
		"jdbc:postgresql://::1/db",     // unbracketed IPv6
		"jdbc:postgresql://h:/db",      // empty port
		"jdbc:postgresql://h:abc/db",   // non-numeric port
		"jdbc:postgresql://h:0/db",     // port out of range
		"jdbc:postgresql://h:65536/db", // port out of range
		"jdbc:postgresql://h:-1/db",    // non-numeric port
		"jdbc:postgresql://h:5432" + ph1 + "x/db",
		"jdbc:postgresql://u:pw@h:5432/db", // no userinfo in pgjdbc
		"jdbc:postgresql://h/db?k=%zz",     // invalid escape
		"jdbc:postgresql://h/db?k=%4",      // truncated escape
		"jdbc:postgresql://h/db?k=abc%",    // truncated escape
		"jdbc:postgresql://h/d%G1b",        // invalid escape in database
		"jdbc:postgresql:d%",               // invalid escape in database
	}
	for _, s := range bad {
		_, err := Parse(s)
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) error = %v, want ErrSyntax", s, err)
		}
		if _, _, err := ToSocket(s, sock); !errors.Is(err, ErrSyntax) {
			t.Errorf("ToSocket(%q) error = %v, want ErrSyntax", s, err)
		}
	}
}

func TestErrorsDoNotLeakPasswords(t *testing.T) {
	for _, s := range []string{
		"jdbc:postgresql://admin:Hunter2secret@h:5432/db",
		"jdbc:postgresql://[admin:Hunter2secret@h/db",
		"jdbc:postgresql://h/db?password=Hunter2secret%zz",
	} {
		_, err := Parse(s)
		if err == nil {
			t.Fatalf("Parse(%q) succeeded", s)
		}
		if strings.Contains(err.Error(), "Hunter2secret") {
			t.Errorf("error for %q leaks the password: %v", s, err)
		}
	}
}

func TestParam(t *testing.T) {
	u, err := Parse("jdbc:postgresql://h/db?ApplicationName=my+app%21&user=a&user=b&ssl&x=%" + ph1 + "&socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory%24FactoryArg")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"ApplicationName": "my app!", // URLDecoder: '+' is a space
		"user":            "b",       // last occurrence wins
		"ssl":             "",
		"x":               "%" + ph1,
		"socketFactory":   FactoryArg,
	} {
		got, ok := u.Param(key)
		if !ok || got != want {
			t.Errorf("Param(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if _, ok := u.Param("applicationname"); ok {
		t.Errorf("Param is case-sensitive like pgjdbc properties")
	}
	if !u.IsUnixSocket() {
		t.Errorf("IsUnixSocket with %%24FactoryArg = false")
	}
	if got := (&URL{Database: "my%20db+x"}).DatabaseName(); got != "my db x" {
		t.Errorf("DatabaseName = %q", got)
	}
}

func TestIsUnixSocket(t *testing.T) {
	for s, want := range map[string]bool{
		"jdbc:postgresql://localhost/db?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=" + sock: true,
		"jdbc:postgresql://localhost/db?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$URIScheme":                           true,
		"jdbc:postgresql://localhost/db?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$SystemProperty":                      true,
		"jdbc:postgresql://localhost/db?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory%24SystemProperty":                    true,
		"jdbc:postgresql://localhost/db?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory" + ph1:                               false, // "$FactoryArg" eaten by compose
		"jdbc:postgresql://localhost/db?socketFactory=javax.net.SocketFactory":                                                       false,
		"jdbc:postgresql://db:5432/app": false,
	} {
		u, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if got := u.IsUnixSocket(); got != want {
			t.Errorf("IsUnixSocket(%q) = %v, want %v", s, got, want)
		}
	}
}

const sf = "socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg="

func TestToSocket(t *testing.T) {
	tests := []struct {
		in, file, want string
		notes          []string // codes
	}{
		{ // the brief's example (case 07)
			"jdbc:postgresql://billing-db/billing?sslmode=require&ApplicationName=billing&tcpKeepAlive=true", sock,
			"jdbc:postgresql://localhost/billing?ApplicationName=billing&tcpKeepAlive=true&" + sf + sock,
			[]string{"UDS103"},
		},
		{ // case 01
			"jdbc:postgresql://postgres:5432/appdb", sock,
			"jdbc:postgresql://localhost:5432/appdb?" + sf + sock, nil,
		},
		{ // case 10: params kept in order
			"jdbc:postgresql://database:5432/shop?currentSchema=shop&ApplicationName=shop", sock,
			"jdbc:postgresql://localhost:5432/shop?currentSchema=shop&ApplicationName=shop&" + sf + sock, nil,
		},
		{ // case 05: placeholders for host, port and database
			"jdbc:postgresql://" + ph1 + ":" + ph2 + "/" + ph3 + "?currentSchema=core", sock,
			"jdbc:postgresql://localhost:" + ph2 + "/" + ph3 + "?currentSchema=core&" + sf + sock, nil,
		},
		{ // case 12: half-migrated, wrong socket file and "$FactoryArg" eaten by compose
			"jdbc:postgresql://localhost:5432/appdb?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory" + ph1 + "&socketFactoryArg=/socket-postgresql/.s.PGSQL.5432", sock,
			"jdbc:postgresql://localhost:5432/appdb?" + sf + sock, nil,
		},
		{ // socket params in the middle are moved to the end
			"jdbc:postgresql://localhost/db?socketFactoryArg=/old&a=1&socketFactory=x&b=2", sock,
			"jdbc:postgresql://localhost/db?a=1&b=2&" + sf + sock, nil,
		},
		{ // short forms
			"jdbc:postgresql:db", sock,
			"jdbc:postgresql://localhost/db?" + sf + sock, nil,
		},
		{
			"jdbc:postgresql:/", sock,
			"jdbc:postgresql://localhost/?" + sf + sock, nil,
		},
		{
			"jdbc:postgresql:", sock,
			"jdbc:postgresql://localhost/?" + sf + sock, nil,
		},
		{
			"jdbc:postgresql:a/b?x=1", sock,
			"jdbc:postgresql://localhost/a%2Fb?x=1&" + sf + sock, nil,
		},
		{
			"jdbc:postgresql://?service=svc", sock,
			"jdbc:postgresql://localhost/?service=svc&" + sf + sock, nil,
		},
		{
			"jdbc:postgresql:///db", sock,
			"jdbc:postgresql://localhost/db?" + sf + sock, nil,
		},
		{ // IPv6 host, port kept
			"jdbc:postgresql://[::1]:5740/accounting", "/run/pg/.s.PGSQL.5740",
			"jdbc:postgresql://localhost:5740/accounting?" + sf + "/run/pg/.s.PGSQL.5740", nil,
		},
		{ // host no port, empty query
			"jdbc:postgresql://db/app?", sock,
			"jdbc:postgresql://localhost/app?" + sf + sock, nil,
		},
		{ // trailing '&' reused
			"jdbc:postgresql://db/app?a=1&", sock,
			"jdbc:postgresql://localhost/app?a=1&" + sf + sock, nil,
		},
		{ // percent-encoding and key case kept; allowed sslmodes kept
			"jdbc:postgresql://DB/my%20db?ApplicationName=a%26b&sslmode=prefer&SSLMODE=require", sock,
			"jdbc:postgresql://localhost/my%20db?ApplicationName=a%26b&sslmode=prefer&SSLMODE=require&" + sf + sock, nil,
		},
		{ // every SSL form pgjdbc treats as required
			"jdbc:postgresql://db/app?ssl=true&sslmode=verify-full&x=1&sslmode=VERIFY-CA&ssl&ssl=&sslmode=disable&ssl=false", sock,
			"jdbc:postgresql://localhost/app?x=1&sslmode=disable&ssl=false&" + sf + sock,
			[]string{"UDS103"},
		},
		{ // sslmode from a variable: kept, with a note
			"jdbc:postgresql://db/app?sslmode=" + ph1, sock,
			"jdbc:postgresql://localhost/app?sslmode=" + ph1 + "&" + sf + sock,
			[]string{"UDS103"},
		},
		{ // socket file needing escapes
			"jdbc:postgresql://db/app", "/run/a+b&c%d/.s.PGSQL.5432",
			"jdbc:postgresql://localhost/app?" + sf + "/run/a%2Bb%26c%25d/.s.PGSQL.5432", nil,
		},
		{ // placeholder in the user/password params kept
			"jdbc:postgresql://db/app?user=" + ph1 + "&password=" + ph2, sock,
			"jdbc:postgresql://localhost/app?user=" + ph1 + "&password=" + ph2 + "&" + sf + sock, nil,
		},
		// Already in socket form: unchanged.
		{
			"jdbc:postgresql://localhost:5432/appdb?" + sf + sock, sock,
			"jdbc:postgresql://localhost:5432/appdb?" + sf + sock, nil,
		},
		{
			"jdbc:postgresql://localhost/appdb?socketFactoryArg=" + sock + "&x=1&socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory%24FactoryArg", sock,
			"jdbc:postgresql://localhost/appdb?socketFactoryArg=" + sock + "&x=1&socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory%24FactoryArg", nil,
		},
		{ // already socket but other file: re-pointed
			"jdbc:postgresql://localhost/appdb?" + sf + "/tmp/.s.PGSQL.5432", sock,
			"jdbc:postgresql://localhost/appdb?" + sf + sock, nil,
		},
		{ // socket form but LOCALHOST (junixsocket refuses it)
			"jdbc:postgresql://LOCALHOST/appdb?" + sf + sock, sock,
			"jdbc:postgresql://localhost/appdb?" + sf + sock, nil,
		},
	}
	for _, tt := range tests {
		got, notes, err := ToSocket(tt.in, tt.file)
		if err != nil {
			t.Errorf("ToSocket(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ToSocket(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		var codes []string
		for _, n := range notes {
			codes = append(codes, n.Code)
		}
		if !reflect.DeepEqual(codes, tt.notes) {
			t.Errorf("ToSocket(%q) notes = %v, want %v", tt.in, notes, tt.notes)
		}
		again, _, err := ToSocket(got, tt.file)
		if err != nil || again != got {
			t.Errorf("ToSocket not idempotent on %q: %q, %v", got, again, err)
		}
		u, err := Parse(got)
		if err != nil || !u.IsUnixSocket() || u.Hosts[0].Name != "localhost" {
			t.Errorf("ToSocket output %q does not parse as a socket URL (%v)", got, err)
		}
		if arg, _ := u.Param("socketFactoryArg"); arg != tt.file {
			t.Errorf("socketFactoryArg of %q = %q, want %q", got, arg, tt.file)
		}
	}
}

func TestToSocketSSLNoteMessage(t *testing.T) {
	_, notes, err := ToSocket("jdbc:postgresql://billing-db/billing?sslmode=require", sock)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || notes[0].Code != "UDS103" ||
		!strings.Contains(notes[0].Message, "The server does not support SSL.") ||
		!strings.Contains(notes[0].Message, "sslmode=require") {
		t.Errorf("notes = %#v", notes)
	}
}

func TestToSocketErrors(t *testing.T) {
	for _, s := range []string{
		"jdbc:postgresql://h1:5432,h2:5433/db",
		"jdbc:postgresql://h1,h2/db?targetServerType=primary",
	} {
		if _, _, err := ToSocket(s, sock); !errors.Is(err, ErrMultiHost) {
			t.Errorf("ToSocket(%q) error = %v, want ErrMultiHost", s, err)
		}
	}
	for _, f := range []string{"", "relative/.s.PGSQL.5432"} {
		if _, _, err := ToSocket("jdbc:postgresql://db/app", f); err == nil {
			t.Errorf("ToSocket with socket file %q succeeded", f)
		}
	}
}

func TestFromSocket(t *testing.T) {
	tests := []struct{ in, host, port, want string }{
		{"jdbc:postgresql://localhost/billing?ApplicationName=billing&tcpKeepAlive=true&" + sf + sock, "billing-db", "",
			"jdbc:postgresql://billing-db/billing?ApplicationName=billing&tcpKeepAlive=true"},
		{"jdbc:postgresql://localhost:5432/appdb?" + sf + sock, "postgres", "5432",
			"jdbc:postgresql://postgres:5432/appdb"},
		{"jdbc:postgresql://localhost:" + ph1 + "/" + ph2 + "?currentSchema=core&" + sf + sock, ph3, "",
			"jdbc:postgresql://" + ph3 + "/" + ph2 + "?currentSchema=core"},
		{"jdbc:postgresql:db", "::1", "5433", "jdbc:postgresql://[::1]:5433/db"},
		{"jdbc:postgresql://localhost/db?", "pg", "", "jdbc:postgresql://pg/db?"},
	}
	for _, tt := range tests {
		got, err := FromSocket(tt.in, tt.host, tt.port)
		if err != nil || got != tt.want {
			t.Errorf("FromSocket(%q, %q, %q) = %q, %v; want %q", tt.in, tt.host, tt.port, got, err, tt.want)
		}
	}
	// Round trip with ToSocket for a URL without SSL settings.
	orig := "jdbc:postgresql://orders-db:5432/orders?currentSchema=x"
	s, _, err := ToSocket(orig, sock)
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromSocket(s, "orders-db", "5432")
	if err != nil || back != orig {
		t.Errorf("FromSocket(ToSocket(%q)) = %q, %v", orig, back, err)
	}
	for _, h := range []string{"", "a,b", "a/b", "u@h", "[::1]:5432"} {
		if _, err := FromSocket("jdbc:postgresql://localhost/db", h, ""); err == nil {
			t.Errorf("FromSocket host %q accepted", h)
		}
	}
	if _, err := FromSocket("jdbc:postgresql://localhost/db", "h", "x"); err == nil {
		t.Errorf("FromSocket port x accepted")
	}
	if _, err := FromSocket("jdbc:postgresql://a,b/db", "h", ""); !errors.Is(err, ErrMultiHost) {
		t.Errorf("FromSocket multi-host: %v", err)
	}
}

func TestRedact(t *testing.T) {
	const pw = "Sup3rS3cret"
	tests := []struct{ in, want string }{
		{"jdbc:postgresql://db/app?user=u&password=" + pw + "&ssl=false",
			"jdbc:postgresql://db/app?user=u&password=****&ssl=false"},
		{"jdbc:postgresql://db/app?PASSWORD=" + pw, "jdbc:postgresql://db/app?PASSWORD=****"},
		{"jdbc:postgresql://db/app?password=" + pw + "&password=" + pw + "x&sslpassword=" + pw,
			"jdbc:postgresql://db/app?password=****&password=****&sslpassword=****"},
		{"jdbc:postgresql://db/app?password=" + ph1, "jdbc:postgresql://db/app?password=****"},
		{"jdbc:postgresql://db/app?password=", "jdbc:postgresql://db/app?password="},
		{"jdbc:postgresql://db/app", "jdbc:postgresql://db/app"},
		// Not accepted by Parse: redacted textually.
		{"jdbc:postgresql://admin:" + pw + "@db:5432/app", "jdbc:postgresql://admin:****@db:5432/app"},
		{"jdbc:postgresql://admin:p@ss" + pw + "@db:5432/app?password=" + pw, "jdbc:postgresql://admin:****@db:5432/app?password=****"},
		{"jdbc:postgresql://db/app?password=" + pw + "%zz&x=1", "jdbc:postgresql://db/app?password=****&x=1"},
		{"jdbc:postgresql://db:x/app?a=1&Password=" + pw, "jdbc:postgresql://db:x/app?a=1&Password=****"},
	}
	for _, tt := range tests {
		got := Redact(tt.in)
		if got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, pw) {
			t.Errorf("Redact(%q) leaves the password: %q", tt.in, got)
		}
	}
}
