package dialect

import "testing"

func TestNpgsqlToSocket(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Host=db;Database=app;Username=u", "Host=/run/pg;Database=app;Username=u;Port=5433"},
		{"Server=db; Port=5432; Database=app;", "Server=/run/pg; Port=5433; Database=app;"},
		{"host=db;port=5433;database=app;Password=x", "host=/run/pg;port=5433;database=app;Password=x"},
		// .NET's grammar: quoted values may hold ';' and doubled quotes.
		{`Host="db";Password='a;b';Database=app`, `Host=/run/pg;Password='a;b';Database=app;Port=5433`},
		{`Host=db;Password="a""b;c";DB=app;Port=5433`, `Host=/run/pg;Password="a""b;c";DB=app;Port=5433`},
		// A port in Host wins over Port= (TrySplitHostPort); it moves to Port=.
		{"Host=db:6000;Port=5432;UID=u", "Host=/run/pg;Port=5433;UID=u"},
		{"Server = db:5433 ; Database = app", "Server = /run/pg ; Database = app;Port=5433"},
	}
	for _, c := range cases {
		got, _, err := npgsqlToSocket(c.in, "/run/pg", 5433)
		if err != nil || got != c.want {
			t.Errorf("npgsqlToSocket(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		again, _, _ := npgsqlToSocket(got, "/run/pg", 5433)
		if again != got {
			t.Errorf("not idempotent: %q → %q", got, again)
		}
	}
	if _, ok := NpgsqlHost("Host=db"); ok {
		t.Error("a lone Host= is not a connection string")
	}
	if _, _, err := npgsqlToSocket("Host=a,b;Database=x", "/d", 5432); err == nil {
		t.Error("multi-host accepted")
	}
	for _, bad := range []string{"Host=db;Password='a;Database=x", `Host="db;Database=x`, "Host=db;Password=a';Database=x", `Host="db"x;Database=x`} {
		if _, _, err := npgsqlToSocket(bad, "/d", 5432); err == nil || npgsqlSyntax(bad) == nil {
			t.Errorf("npgsqlToSocket(%q) accepted a string .NET rejects", bad)
		}
	}
	for in, want := range map[string][2]string{
		"Host=db:5433;Database=x":           {"db", "5433"},
		"Host=db:5433;Port=6000;Database=x": {"db", "5433"},
		"Host=db;Port=6000;Database=x":      {"db", "6000"},
		"Host=[::1]:5433;Database=x":        {"::1", "5433"},
		"Host=/run/pg;Port=6000;Database=x": {"/run/pg", "6000"},
		"Host=a:1,b:2;Database=x":           {"a,b", ""},
	} {
		h, _ := NpgsqlHost(in)
		if p := NpgsqlPort(in); h != want[0] || p != want[1] {
			t.Errorf("npgsqlHost/Port(%q) = %q, %q; want %q, %q", in, h, p, want[0], want[1])
		}
	}
	if got := Redact(Npgsql, "Host=db;Password=s3cret;Database=x"); got != "Host=db;Password=****;Database=x" {
		t.Errorf("redact = %q", got)
	}
}

func TestR2DBCToSocket(t *testing.T) {
	cases := []struct{ in, want string }{
		{"r2dbc:postgresql://u:p@db:5432/app", "r2dbc:postgresql://u:p@localhost/app?socket=/run/pg/.s.PGSQL.5432"},
		{"r2dbc:pool:postgresql://db/app?maxSize=5&socket=/old", "r2dbc:pool:postgresql://localhost/app?maxSize=5&socket=/run/pg/.s.PGSQL.5432"},
	}
	for _, c := range cases {
		got, notes, err := r2dbcToSocket(c.in, "/run/pg", 5432)
		if err != nil || got != c.want || len(notes) != 1 {
			t.Errorf("r2dbcToSocket(%q) = %q, %v, %v; want %q", c.in, got, notes, err, c.want)
		}
		if again, _, _ := r2dbcToSocket(got, "/run/pg", 5432); again != got {
			t.Errorf("not idempotent: %q → %q", got, again)
		}
	}
	if got := Redact(R2DBC, "r2dbc:postgresql://u:s3cret@db/app"); got != "r2dbc:postgresql://u:****@db/app" {
		t.Errorf("redact = %q", got)
	}
}

// TestSchemelessAddress: a command word USER[:PASSWORD]@HOST[:PORT][/DB]
// (Nakama's --database.address) names its host and is shown with the
// password masked; an e-mail address or an image's tag@digest is none.
func TestSchemelessAddress(t *testing.T) {
	for _, c := range []struct{ word, host, shown string }{
		{"postgres:localdb@postgres:5432/nakama", "postgres", "postgres:****@postgres:5432/nakama"},
		{"root@db:26257", "db", "root@db:26257"},
		{"app:pw@db/app?sslmode=disable", "db", "app:****@db/app?sslmode=disable"},
		{"app:@db:5432/app", "db", "app:@db:5432/app"},
		{"admin@db", "", ""},
		{"postgres:16@sha256:0123abcd", "", ""},
		{"postgres://app:pw@db/app", "", ""},
		{"--database.address", "", ""},
	} {
		host, shown, ok := SchemelessAddress(c.word)
		if ok != (c.host != "") || host != c.host || shown != c.shown {
			t.Errorf("SchemelessAddress(%q) = %q, %q, %v; want %q, %q", c.word, host, shown, ok, c.host, c.shown)
		}
	}
}

// TestSemicolonStringIsConnection: a semicolon string that does not parse
// is a malformed connection value only with a database, user or password
// keyword beside Host/Server (Malformed), or, without one, when its host
// is a PostgreSQL service, which UnkeyedNpgsql leaves to the caller.
// NBitcoin's RPC string is neither.
func TestSemicolonStringIsConnection(t *testing.T) {
	for _, c := range []struct {
		value     string
		malformed bool
		host      string // UnkeyedNpgsql's host, "" for none
	}{
		{"server=http://bitcoind:43782;ceiwHEbqWI83:DwubwWsoo3", false, "http://bitcoind:43782"},
		{"Host=db;Port=5432;User ID=app;Database=\"app", true, ""},
		{"Host=db;Password='pw;Database=app", true, ""},
		{"Host=db:5433;sslmode='require", false, "db"},
		{"type=lnd-rest;server=https://lnd:8080/;macaroonfilepath=/m", false, ""},
		{"Host=db;Port=5432;Database=app", false, ""},
	} {
		if got := Malformed(c.value, c.value) != nil; got != c.malformed {
			t.Errorf("Malformed(%q) = %v, want %v", c.value, got, c.malformed)
		}
		host, err := UnkeyedNpgsql(c.value)
		if (err != nil) != (c.host != "") || host != c.host {
			t.Errorf("UnkeyedNpgsql(%q) = %q, %v; want host %q", c.value, host, err, c.host)
		}
	}
}
