package rewrite

import "testing"

func TestNpgsqlToSocket(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Host=db;Database=app;Username=u", "Host=/run/pg;Database=app;Username=u;Port=5433"},
		{"Server=db; Port=5432; Database=app;", "Server=/run/pg; Port=5433; Database=app;"},
		{"host=db;port=5433;database=app;Password=x", "host=/run/pg;port=5433;database=app;Password=x"},
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
	if _, ok := npgsqlHost("Host=db"); ok {
		t.Error("a lone Host= is not a connection string")
	}
	if _, _, err := npgsqlToSocket("Host=a,b;Database=x", "/d", 5432); err == nil {
		t.Error("multi-host accepted")
	}
	if got := redact(DialectNpgsql, "Host=db;Password=s3cret;Database=x"); got != "Host=db;Password=****;Database=x" {
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
	if got := redact(DialectR2DBC, "r2dbc:postgresql://u:s3cret@db/app"); got != "r2dbc:postgresql://u:****@db/app" {
		t.Errorf("redact = %q", got)
	}
}
