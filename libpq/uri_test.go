package libpq

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

const dir = "/var/run/postgresql"

func TestIsURI(t *testing.T) {
	for s, want := range map[string]bool{
		"postgres://u@h/db":              true,
		"postgresql://h":                 true,
		"POSTGRESQL://h/db":              true,
		"Postgres://h/db":                true,
		"postgresql+psycopg2://u:p@h/db": true,
		"postgresql+asyncpg://u:p@h/db":  true,
		"postgres+pg8000://h/db":         true,
		"postgresql+psycopg2cffi://h/db": true,
		"postgresql+://h/db":             false,
		"postgresql+a b://h/db":          false,
		"postgresql+a+b://h/db":          false,
		"postgresqlx://h/db":             false,
		"postgis://h/db":                 false,
		"redis://cache:6379/0":           false,
		"http://users:8080":              false,
		"jdbc:postgresql://h/db":         false,
		"jdbc:mysql://h:3306/db":         false,
		"mysql://u:p@h/db":               false,
		"postgres:/h/db":                 false,
		"postgres":                       false,
		"host=pg dbname=x":               false,
		"":                               false,
		ph1 + "://h/db":                  false,
		" postgres://h/db":               false,
		"x postgres://h/db":              false,
		"postgres://" + ph1 + ":" + ph2:  true,
	} {
		if got := IsURI(s); got != want {
			t.Errorf("IsURI(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParseURI(t *testing.T) {
	tests := []struct {
		in   string
		want URI
	}{
		{"postgres://api:s3cret@db:5432/api?sslmode=disable&pool_max_conns=10", URI{Scheme: "postgres", Userinfo: "api:s3cret", HasUserinfo: true,
			Hosts: []Host{{"db", "5432"}}, Path: "api", HasPath: true, HasQuery: true,
			Params: []Param{{Key: "sslmode", Value: "disable"}, {Key: "pool_max_conns", Value: "10"}}}},
		{"postgresql://reports@pg:5433/reports", URI{Scheme: "postgresql", Userinfo: "reports", HasUserinfo: true,
			Hosts: []Host{{"pg", "5433"}}, Path: "reports", HasPath: true}},
		{"postgresql://", URI{Scheme: "postgresql"}},
		{"postgresql://localhost", URI{Scheme: "postgresql", Hosts: []Host{{"localhost", ""}}}},
		{"postgresql://localhost:5433", URI{Scheme: "postgresql", Hosts: []Host{{"localhost", "5433"}}}},
		{"postgresql://localhost/mydb", URI{Scheme: "postgresql", Hosts: []Host{{"localhost", ""}}, Path: "mydb", HasPath: true}},
		{"postgresql://user@localhost", URI{Scheme: "postgresql", Userinfo: "user", HasUserinfo: true, Hosts: []Host{{"localhost", ""}}}},
		{"postgresql://user:secret@localhost", URI{Scheme: "postgresql", Userinfo: "user:secret", HasUserinfo: true, Hosts: []Host{{"localhost", ""}}}},
		{"postgresql://other@localhost/otherdb?connect_timeout=10&application_name=myapp", URI{Scheme: "postgresql", Userinfo: "other", HasUserinfo: true,
			Hosts: []Host{{"localhost", ""}}, Path: "otherdb", HasPath: true, HasQuery: true,
			Params: []Param{{Key: "connect_timeout", Value: "10"}, {Key: "application_name", Value: "myapp"}}}},
		{"postgresql://host1:123,host2:456/somedb?target_session_attrs=any", URI{Scheme: "postgresql",
			Hosts: []Host{{"host1", "123"}, {"host2", "456"}}, Path: "somedb", HasPath: true, HasQuery: true,
			Params: []Param{{Key: "target_session_attrs", Value: "any"}}}},
		{"postgresql://[2001:db8::1234]/database", URI{Scheme: "postgresql", Hosts: []Host{{"[2001:db8::1234]", ""}}, Path: "database", HasPath: true}},
		{"postgresql://[::1]:5433,h2/db", URI{Scheme: "postgresql", Hosts: []Host{{"[::1]", "5433"}, {"h2", ""}}, Path: "db", HasPath: true}},
		{"postgresql:///dbname?host=/var/lib/postgresql", URI{Scheme: "postgresql", Path: "dbname", HasPath: true, HasQuery: true,
			Params: []Param{{Key: "host", Value: "/var/lib/postgresql"}}}},
		{"postgresql://%2Fvar%2Flib%2Fpostgresql/dbname", URI{Scheme: "postgresql", Hosts: []Host{{"%2Fvar%2Flib%2Fpostgresql", ""}}, Path: "dbname", HasPath: true}},
		{"postgresql://:5433/db", URI{Scheme: "postgresql", Hosts: []Host{{"", "5433"}}, Path: "db", HasPath: true}},
		{"postgresql://,h2/db", URI{Scheme: "postgresql", Hosts: []Host{{"", ""}, {"h2", ""}}, Path: "db", HasPath: true}},
		{"postgres://@h/", URI{Scheme: "postgres", HasUserinfo: true, Hosts: []Host{{"h", ""}}, HasPath: true}},
		{"postgres://u@/db", URI{Scheme: "postgres", Userinfo: "u", HasUserinfo: true, Path: "db", HasPath: true}},
		{"postgres://u@?host=/x", URI{Scheme: "postgres", Userinfo: "u", HasUserinfo: true, HasQuery: true, Params: []Param{{Key: "host", Value: "/x"}}}},
		{"postgres://h?", URI{Scheme: "postgres", Hosts: []Host{{"h", ""}}, HasQuery: true}},
		{"postgres://h/d/e", URI{Scheme: "postgres", Hosts: []Host{{"h", ""}}, Path: "d/e", HasPath: true}},
		{"postgresql+asyncpg://u:p%40ss@h/my%20db?ssl=true&&flag&opt=a=b&", URI{Scheme: "postgresql+asyncpg", Userinfo: "u:p%40ss", HasUserinfo: true,
			Hosts: []Host{{"h", ""}}, Path: "my%20db", HasPath: true, HasQuery: true,
			Params: []Param{{Key: "ssl", Value: "true"}, {bare: true}, {Key: "flag", bare: true}, {Key: "opt", Value: "a=b"}, {bare: true}}}},
		// userinfo ends at the first '@' before any '/', as in libpq and pgx
		{"postgres://h?application_name=a@b/db", URI{Scheme: "postgres", Userinfo: "h?application_name=a", HasUserinfo: true,
			Hosts: []Host{{"b", ""}}, Path: "db", HasPath: true}},
		{"postgres://h/db?application_name=a@b", URI{Scheme: "postgres", Hosts: []Host{{"h", ""}}, Path: "db", HasPath: true, HasQuery: true,
			Params: []Param{{Key: "application_name", Value: "a@b"}}}},
		// Placeholders anywhere.
		{"postgres://" + ph1 + ":" + ph2 + "@" + ph3 + ":" + ph1 + "/" + ph2 + "?" + ph3 + "=" + ph1, URI{Scheme: "postgres",
			Userinfo: ph1 + ":" + ph2, HasUserinfo: true, Hosts: []Host{{ph3, ph1}}, Path: ph2, HasPath: true, HasQuery: true,
			Params: []Param{{Key: ph3, Value: ph1}}}},
		{"postgres://u:%" + ph1 + "@h:54" + ph2 + "/d%" + ph3, URI{Scheme: "postgres", Userinfo: "u:%" + ph1, HasUserinfo: true,
			Hosts: []Host{{"h", "54" + ph2}}, Path: "d%" + ph3, HasPath: true}},
	}
	for _, tt := range tests {
		u, err := ParseURI(tt.in)
		if err != nil {
			t.Errorf("ParseURI(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(*u, tt.want) {
			t.Errorf("ParseURI(%q)\n got %#v\nwant %#v", tt.in, *u, tt.want)
		}
		if got := u.String(); got != tt.in {
			t.Errorf("ParseURI(%q).String() = %q", tt.in, got)
		}
	}
}

func TestParseURIErrors(t *testing.T) {
	for _, s := range []string{"redis://cache:6379/0", "http://users:8080", "jdbc:postgresql://h/db", "jdbc:mysql://h/db", "pg", "", "host=pg dbname=x"} {
		if _, err := ParseURI(s); !errors.Is(err, ErrNotPostgres) {
			t.Errorf("ParseURI(%q) error = %v, want ErrNotPostgres", s, err)
		}
		if _, _, err := URIToSocket(s, dir, 5432); !errors.Is(err, ErrNotPostgres) {
			t.Errorf("URIToSocket(%q) error = %v, want ErrNotPostgres", s, err)
		}
	}
	for _, s := range []string{
		"postgres://[::1/db",     // unterminated '['
		"postgres://[::1",        // unterminated '['
		"postgres://[]/db",       // empty IPv6
		"postgres://[::1]x/db",   // junk after ']'
		"postgres://a]b/db",      // stray ']'
		"postgres://a[b/db",      // stray '['
		"postgres://[[::1]]/db",  // nested
		"postgres://h:/db",       // empty port
		"postgres://h:x/db",      // bad port
		"postgres://h:0/db",      // port range
		"postgres://h:99999/db",  // port range
		"postgres://h:1:2/db",    // bad port
		"postgres://u:p@ss@h/db", // unencoded '@' in password
		"postgres://u:p%zz@h/db", // bad escape in password
		"postgres://u%2@h/db",    // truncated escape in user
		"postgres://h%G0/db",     // bad escape in host
		"postgres://h/d%",        // truncated escape in db
		"postgres://h/d%00",      // %00 forbidden
		"postgres://h/d?a=%zz",   // bad escape in value
		"postgres://h/d?%zz=1",   // bad escape in key
		"postgres://h/d?%zz",     // bad escape in bare key
		"postgresql+psycopg2://h:5432" + ph1 + "x/db",
	} {
		if _, err := ParseURI(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseURI(%q) error = %v, want ErrSyntax", s, err)
		}
		if _, _, err := URIToSocket(s, dir, 5432); !errors.Is(err, ErrSyntax) {
			t.Errorf("URIToSocket(%q) error = %v, want ErrSyntax", s, err)
		}
	}
	for _, s := range []string{"postgres://u:Hunter2secret@h:x/db", "postgres://u:Hunter2secret%zz@h/db", "postgres://u:Hunter2@secret@h/db",
		"postgres://h/db?password=Hunter2secret%zz"} {
		_, err := ParseURI(s)
		if err == nil {
			t.Fatalf("ParseURI(%q) succeeded", s)
		}
		if strings.Contains(err.Error(), "Hunter2") || strings.Contains(err.Error(), "secret") {
			t.Errorf("error for %q leaks the password: %v", s, err)
		}
	}
}

func TestURIAccessors(t *testing.T) {
	u, err := ParseURI("postgresql+psycopg2://us%40r:p%3Ass:w@h/my%20db?a=1&a=2&b=x+y&c&h%6Fst=%2Fsock")
	if err != nil {
		t.Fatal(err)
	}
	user, pw, has := u.User()
	if user != "us@r" || pw != "p:ss:w" || !has {
		t.Errorf("User() = %q, %q, %v", user, pw, has)
	}
	if db := u.Database(); db != "my db" {
		t.Errorf("Database() = %q", db)
	}
	for k, want := range map[string]string{"a": "2", "b": "x+y", "c": "", "host": "/sock"} {
		if got, ok := u.Param(k); !ok || got != want {
			t.Errorf("Param(%q) = %q, %v; want %q", k, got, ok, want)
		}
	}
	if _, ok := u.Param("A"); ok {
		t.Errorf("Param is case-sensitive")
	}
	u, _ = ParseURI("postgres://u@h/db")
	if _, _, has := u.User(); has {
		t.Errorf("hasPassword without ':'")
	}
	u, _ = ParseURI("postgres://h/db")
	if user, _, _ := u.User(); user != "" {
		t.Errorf("User() without userinfo = %q", user)
	}
}

func TestSocketDir(t *testing.T) {
	tests := []struct {
		in   string
		dir  string
		want bool
	}{
		{"postgres://u@/db?host=/var/run/postgresql", "/var/run/postgresql", true},
		{"postgres://u@/db?host=%2Fvar%2Frun%2Fpostgresql", "/var/run/postgresql", true},
		{"postgres://u@%2Fvar%2Frun%2Fpostgresql/db", "/var/run/postgresql", true},
		{"postgres://u@%2fsock:5433/db", "/sock", true},
		{"postgres://u@db/db?host=/sock", "/sock", true}, // query parameter wins
		{"postgres://u@%2Fsock/db?host=db", "", false},
		{"postgres://u@db/db", "", false},
		{"postgres:///db", "", false}, // libpq default, not guessed
		{"postgres://u@/db?host=/sock&hostaddr=10.0.0.1", "", false},
		{"postgres://u@/db?host=" + ph1, "", false},
		{"postgres://a,b/db", "", false},
		{"postgres:///db?host=@abstract", "@abstract", true},
		{"postgres://u@/db?host=/a,/b", "", false},
	}
	for _, tt := range tests {
		u, err := ParseURI(tt.in)
		if err != nil {
			t.Fatalf("ParseURI(%q): %v", tt.in, err)
		}
		d, ok := u.SocketDir()
		if d != tt.dir || ok != tt.want {
			t.Errorf("SocketDir(%q) = %q, %v; want %q, %v", tt.in, d, ok, tt.dir, tt.want)
		}
	}
}

func TestURIToSocket(t *testing.T) {
	tests := []struct {
		in    string
		dir   string
		port  int
		want  string
		notes []string
	}{
		{ // brief example / case 02
			"postgres://api:s3cret@db:5432/api?sslmode=disable&pool_max_conns=10", dir, 5432,
			"postgres://api:s3cret@/api?sslmode=disable&pool_max_conns=10&host=/var/run/postgresql", nil},
		{ // brief example / case 06
			"postgresql://reports@pg:5433/reports", dir, 5433,
			"postgresql://reports@/reports?host=/var/run/postgresql&port=5433", nil},
		{ // case 09
			"postgres://users:pw@users-db:5432/users", dir, 5432,
			"postgres://users:pw@/users?host=/var/run/postgresql", nil},
		{ // no userinfo
			"postgres://db/app", dir, 5432, "postgres:///app?host=/var/run/postgresql", nil},
		{
			"postgres://db:5432", dir, 5432, "postgres://?host=/var/run/postgresql", nil},
		{ // IPv6
			"postgresql://u@[::1]:5433/db?x=1", dir, 5433, "postgresql://u@/db?x=1&host=/var/run/postgresql&port=5433", nil},
		{ // SQLAlchemy drivers, scheme case kept
			"postgresql+psycopg2://u:p@db/app", dir, 5432, "postgresql+psycopg2://u:p@/app?host=/var/run/postgresql", nil},
		{
			"PostgreSQL+AsyncPG://u:p@localhost/app", dir, 5432, "PostgreSQL+AsyncPG://u:p@/app?host=/var/run/postgresql", nil},
		{ // existing host/hostaddr/port params replaced in place, not duplicated
			"postgres://u@db/app?host=db&a=1&hostaddr=10.0.0.2&port=5432&b=2&host=x&port=1", dir, 5433,
			"postgres://u@/app?host=/var/run/postgresql&a=1&port=5433&b=2", nil},
		{ // port param equal: kept
			"postgres://u@db/app?port=5432", dir, 5432, "postgres://u@/app?port=5432&host=/var/run/postgresql", nil},
		{ // percent-encoding and order kept
			"postgres://us%40r:p%2Fw@db/my%20db?application_name=a%26b&options=-c%20x%3Dy", dir, 5432,
			"postgres://us%40r:p%2Fw@/my%20db?application_name=a%26b&options=-c%20x%3Dy&host=/var/run/postgresql", nil},
		{ // trailing '&' reused, empty query
			"postgres://db/app?a=1&", dir, 5432, "postgres:///app?a=1&host=/var/run/postgresql", nil},
		{
			"postgres://db/app?", dir, 5432, "postgres:///app?host=/var/run/postgresql", nil},
		{ // percent-encoded host form becomes the portable query form
			"postgres://u:p@%2Fvar%2Frun%2Fpostgresql/db", dir, 5432, "postgres://u:p@/db?host=/var/run/postgresql", nil},
		{ // placeholders for every part
			"postgres://" + ph1 + ":" + ph2 + "@" + ph3 + ":" + ph1 + "/" + ph2 + "?application_name=" + ph3, dir, 5432,
			"postgres://" + ph1 + ":" + ph2 + "@/" + ph2 + "?application_name=" + ph3 + "&host=/var/run/postgresql", nil},
		{ // an sslmode some driver fails on over a socket becomes disable, with UDS104
			"postgres://u@db/app?sslmode=require", dir, 5432, "postgres://u@/app?sslmode=disable&host=/var/run/postgresql", []string{"UDS104"}},
		{
			"postgres://u@db/app?sslmode=verify-full&sslmode=prefer", dir, 5432, "postgres://u@/app?sslmode=disable&sslmode=disable&host=/var/run/postgresql", []string{"UDS104"}},
		{
			"postgres://u@db/app?ssl=true", dir, 5432, "postgres://u@/app?sslmode=disable&host=/var/run/postgresql", []string{"UDS104"}},
		{ // node pg turns TLS on for a certificate parameter alone
			"postgres://u@db/app?sslrootcert=/c.pem&sslmode=allow", dir, 5432, "postgres://u@/app?sslrootcert=/c.pem&sslmode=disable&host=/var/run/postgresql", []string{"UDS104"}},
		{
			"postgres://u@db/app?sslcert=/c.pem", dir, 5432, "postgres://u@/app?sslcert=/c.pem&sslmode=disable&host=/var/run/postgresql", []string{"UDS104"}},
		{
			"postgres://u@db/app?sslmode=" + ph1, dir, 5432, "postgres://u@/app?sslmode=disable&host=/var/run/postgresql", []string{"UDS104"}},
		{ // dir needing escapes
			"postgres://db/app", "/run/a b&c", 5432, "postgres:///app?host=/run/a%20b%26c", nil},
		{ // already socket: unchanged
			"postgres://api:s3cret@/api?sslmode=disable&pool_max_conns=10&host=/var/run/postgresql", dir, 5432,
			"postgres://api:s3cret@/api?sslmode=disable&pool_max_conns=10&host=/var/run/postgresql", nil},
		{
			"postgresql://reports@/reports?host=%2Fvar%2Frun%2Fpostgresql&port=5433", dir, 5433,
			"postgresql://reports@/reports?host=%2Fvar%2Frun%2Fpostgresql&port=5433", nil},
		{ // already socket, other directory
			"postgres:///db?host=/tmp", dir, 5432, "postgres:///db?host=/var/run/postgresql", nil},
	}
	for _, tt := range tests {
		got, notes, err := URIToSocket(tt.in, tt.dir, tt.port)
		if err != nil {
			t.Errorf("URIToSocket(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("URIToSocket(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		var codes []string
		for _, n := range notes {
			codes = append(codes, n.Code)
		}
		if !reflect.DeepEqual(codes, tt.notes) {
			t.Errorf("URIToSocket(%q) notes = %v, want %v", tt.in, notes, tt.notes)
		}
		again, _, err := URIToSocket(got, tt.dir, tt.port)
		if err != nil || again != got {
			t.Errorf("URIToSocket not idempotent on %q: %q, %v", got, again, err)
		}
		u, err := ParseURI(got)
		if err != nil {
			t.Fatalf("output %q does not parse: %v", got, err)
		}
		if d, ok := u.SocketDir(); !ok || d != tt.dir {
			t.Errorf("SocketDir(%q) = %q, %v", got, d, ok)
		}
	}
}

func TestURIToSocketErrors(t *testing.T) {
	for _, s := range []string{
		"postgresql://host1:123,host2:456/somedb",
		"postgresql://,h2/db",
		"postgresql://a%2Cb/db",
		"postgresql:///db?host=a,b",
		"postgresql:///db?hostaddr=10.0.0.1,10.0.0.2",
	} {
		if _, _, err := URIToSocket(s, dir, 5432); !errors.Is(err, ErrMultiHost) {
			t.Errorf("URIToSocket(%q) error = %v, want ErrMultiHost", s, err)
		}
	}
	for _, d := range []string{"", "relative", "/a,b"} {
		if _, _, err := URIToSocket("postgres://h/db", d, 5432); err == nil {
			t.Errorf("dir %q accepted", d)
		}
	}
	for _, p := range []int{0, -1, 65536} {
		if _, _, err := URIToSocket("postgres://h/db", dir, p); err == nil {
			t.Errorf("port %d accepted", p)
		}
	}
}

func TestURIToSocketNoteMessage(t *testing.T) {
	_, notes, _ := URIToSocket("postgres://u@db/app?sslmode=require", dir, 5432)
	if len(notes) != 1 || !strings.Contains(notes[0].Message, "node pg") || !strings.Contains(notes[0].Message, "sslmode=require") {
		t.Errorf("notes = %#v", notes)
	}
}

func TestURIFromSocket(t *testing.T) {
	tests := []struct {
		in   string
		host string
		port int
		want string
	}{
		{"postgres://api:s3cret@/api?sslmode=disable&pool_max_conns=10&host=/var/run/postgresql", "db", 5432,
			"postgres://api:s3cret@db:5432/api?sslmode=disable&pool_max_conns=10"},
		{"postgresql://reports@/reports?host=/var/run/postgresql&port=5433", "pg", 5433, "postgresql://reports@pg:5433/reports"},
		{"postgres:///db?host=/x", "::1", 0, "postgres://[::1]/db"},
		{"postgres://%2Fsock/db", ph1, 0, "postgres://" + ph1 + "/db"},
	}
	for _, tt := range tests {
		got, err := URIFromSocket(tt.in, tt.host, tt.port)
		if err != nil || got != tt.want {
			t.Errorf("URIFromSocket(%q, %q, %d) = %q, %v; want %q", tt.in, tt.host, tt.port, got, err, tt.want)
		}
	}
	for _, orig := range []string{
		"postgres://api:s3cret@db:5432/api?sslmode=disable&pool_max_conns=10",
		"postgresql://reports@pg:5433/reports",
	} {
		port := 5432
		if strings.Contains(orig, "5433") {
			port = 5433
		}
		host := "db"
		if strings.Contains(orig, "@pg") {
			host = "pg"
		}
		s, _, err := URIToSocket(orig, dir, port)
		if err != nil {
			t.Fatal(err)
		}
		back, err := URIFromSocket(s, host, port)
		if err != nil || back != orig {
			t.Errorf("URIFromSocket(URIToSocket(%q)) = %q, %v", orig, back, err)
		}
	}
	for _, h := range []string{"", "a,b", "a/b", "u@h", "[::1]:5432", "a?b"} {
		if _, err := URIFromSocket("postgres:///db", h, 0); err == nil {
			t.Errorf("host %q accepted", h)
		}
	}
	if _, err := URIFromSocket("postgres://a,b/db", "h", 0); !errors.Is(err, ErrMultiHost) {
		t.Errorf("multi-host: %v", err)
	}
}

func TestWithAuthorityHost(t *testing.T) {
	for in, want := range map[string]string{
		"postgresql://u:p@/db?host=/var/run/postgresql":           "postgresql://u:p@localhost/db?host=/var/run/postgresql",
		"postgres:///db?host=/run/pg&port=5433":                   "postgres://localhost:5433/db?host=/run/pg",
		"postgres://u@/db?port=6543&host=/run/pg&sslmode=disable": "postgres://u@localhost:6543/db?host=/run/pg&sslmode=disable",
		"postgresql://u:p@localhost/db?host=/var/run/postgresql":  "postgresql://u:p@localhost/db?host=/var/run/postgresql",
		"postgresql://u:p@db/db":                                  "postgresql://u:p@db/db",
		"postgresql://u:p@/db?host=db":                            "postgresql://u:p@/db?host=db",
	} {
		got, err := WithAuthorityHost(in, "localhost")
		if err != nil || got != want {
			t.Errorf("WithAuthorityHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := WithAuthorityHost("postgres:///db?host=/d", "/tmp"); err == nil {
		t.Error("a socket path as authority host: no error")
	}
}

func TestWithEncodedHost(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://lemmy:pw@/lemmy?host=/var/run/postgresql":     "postgres://lemmy:pw@%2Fvar%2Frun%2Fpostgresql/lemmy",
		"postgres://u@/db?host=/run/pg&port=5433&sslmode=disable": "postgres://u@%2Frun%2Fpg:5433/db?sslmode=disable",
		"postgresql://u:p@localhost/db?host=/var/run/postgresql":  "postgresql://u:p@localhost/db?host=/var/run/postgresql",
		"postgresql://u:p@db/db":                                  "postgresql://u:p@db/db",
		"postgres://u@/db?host=/var/run/my%20pg":                  "postgres://u@%2Fvar%2Frun%2Fmy%20pg/db",
	} {
		got, err := WithEncodedHost(in)
		if err != nil || got != want {
			t.Errorf("WithEncodedHost(%q) = %q, %v; want %q", in, got, err, want)
		}
		// libpq reads the result back with the directory as its host.
		if u, err := ParseURI(got); err == nil && strings.Contains(want, "%2F") && (len(u.Hosts) != 1 || !strings.HasPrefix(decode(u.Hosts[0].Name), "/")) {
			t.Errorf("WithEncodedHost(%q) = %q: host %v does not decode to a directory", in, got, u.Hosts)
		}
	}
}
