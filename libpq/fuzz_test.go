package libpq

import (
	"errors"
	"strconv"
	"testing"
)

var uriSeeds = []string{
	"postgres://api:s3cret@db:5432/api?sslmode=disable&pool_max_conns=10",
	"postgresql://reports@pg:5433/reports",
	"postgres://users:pw@users-db:5432/users",
	"postgres://api:pw@db.internal.example:5432/api",
	"postgres://api:s3cret@/api?sslmode=disable&pool_max_conns=10&host=/var/run/postgresql",
	"postgresql://reports@/reports?host=/var/run/postgresql&port=5433",
	"postgresql://host1:123,host2:456/somedb?target_session_attrs=any",
	"postgresql://[2001:db8::1234]:5433/database",
	"postgresql://%2Fvar%2Flib%2Fpostgresql/dbname",
	"postgresql+asyncpg://u:p%40ss@h/my%20db?ssl=true&&flag&opt=a=b&",
	"postgres://" + ph1 + ":" + ph2 + "@" + ph3 + ":" + ph1 + "/" + ph2 + "?" + ph3 + "=" + ph1,
	"postgres://h?application_name=a@b/db",
	"postgres://u@db/app?host=db&a=1&hostaddr=10.0.0.2&port=5432&b=2&host=x&port=1",
	"postgres://u:p@ss@h/db",
	"redis://cache:6379/0",
	"http://users:8080",
}

var dsnSeeds = []string{
	"host=pg port=5432 user=worker dbname=jobs sslmode=disable application_name=worker",
	"host = pg\tport= 5432 \n dbname =jobs  ",
	`password='it\'s a \\ secret' user=''`,
	`host='a'port=1 dbname=x`,
	`options=-c\ search_path=x user=a\\b`,
	`host= port=5432 dbname=x`,
	`dbname=x user=u\`,
	"host=" + ph1 + " port=" + ph2 + " dbname=" + ph3 + " " + ph1,
	"dbname=x hostaddr=10.0.0.5 user=u",
	"host=a,b dbname=x",
	"host=pg dbname",
}

func FuzzParse(f *testing.F) {
	for _, s := range uriSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURI(s)
		red := Redact(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrNotPostgres) {
				t.Fatalf("ParseURI(%q): unexpected error kind %v", s, err)
			}
			if IsURI(s) == errors.Is(err, ErrNotPostgres) {
				t.Fatalf("ParseURI(%q) = %v but IsURI = %v", s, err, IsURI(s))
			}
			return
		}
		if !IsURI(s) {
			t.Fatalf("ParseURI(%q) succeeded but IsURI is false", s)
		}
		if got := u.String(); got != s {
			t.Fatalf("ParseURI(%q).String() = %q", s, got)
		}
		u.User()
		u.SocketDir()
		for _, p := range u.Params {
			u.Param(p.Key)
		}
		// Redact keeps the structure and hides every secret.
		r, err := ParseURI(red)
		if err != nil {
			t.Fatalf("Redact(%q) = %q does not parse: %v", s, red, err)
		}
		if _, pw, _ := r.User(); pw != "" && pw != Redacted {
			t.Fatalf("Redact(%q) = %q leaves the userinfo password", s, red)
		}
		if len(r.Params) != len(u.Params) {
			t.Fatalf("Redact(%q) = %q changed the parameters", s, red)
		}
		for i, p := range r.Params {
			if isSecretKey(decode(p.Key)) && !p.bare && u.Params[i].Value != "" && p.Value != Redacted {
				t.Fatalf("Redact(%q) = %q leaves %s", s, red, p.Key)
			}
		}
	})
}

func FuzzToSocket(f *testing.F) {
	for _, s := range uriSeeds {
		f.Add(s, dir, 5432)
		f.Add(s, "/run/a b&c%d", 5433)
	}
	f.Fuzz(func(t *testing.T, s, dir string, port int) {
		out, _, err := URIToSocket(s, dir, port)
		if err != nil {
			return
		}
		u, err := ParseURI(out)
		if err != nil {
			t.Fatalf("URIToSocket(%q, %q, %d) = %q does not parse: %v", s, dir, port, out, err)
		}
		if len(u.Hosts) != 0 {
			t.Fatalf("URIToSocket(%q) = %q keeps a host", s, out)
		}
		if d, ok := u.SocketDir(); !ok || d != dir {
			t.Fatalf("URIToSocket(%q, %q) = %q: SocketDir = %q, %v", s, dir, out, d, ok)
		}
		if p, ok := u.Param("port"); ok && p != strconv.Itoa(port) || !ok && port != DefaultPort {
			t.Fatalf("URIToSocket(%q, %d) = %q: port %q, %v", s, port, out, p, ok)
		}
		if _, ok := u.Param("hostaddr"); ok {
			t.Fatalf("URIToSocket(%q) = %q keeps hostaddr", s, out)
		}
		orig, _ := ParseURI(s)
		if u.Userinfo != orig.Userinfo || u.Path != orig.Path || u.HasPath != orig.HasPath || u.Scheme != orig.Scheme {
			t.Fatalf("URIToSocket(%q) = %q changed userinfo, scheme or path", s, out)
		}
		again, _, err := URIToSocket(out, dir, port)
		if err != nil || again != out {
			t.Fatalf("URIToSocket not idempotent: %q -> %q -> %q (%v)", s, out, again, err)
		}
		if _, err := URIFromSocket(out, "db", 5432); err != nil {
			t.Fatalf("URIFromSocket(%q): %v", out, err)
		}
	})
}

func FuzzParseDSN(f *testing.F) {
	for _, s := range dsnSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDSN(s)
		red := Redact(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseDSN(%q): unexpected error kind %v", s, err)
			}
			if IsDSN(s) {
				t.Fatalf("IsDSN(%q) but ParseDSN fails", s)
			}
			return
		}
		if got := d.String(); got != s {
			t.Fatalf("ParseDSN(%q).String() = %q", s, got)
		}
		if IsURI(s) {
			return // Redact treats it as a URI
		}
		r, err := ParseDSN(red)
		if err != nil {
			t.Fatalf("Redact(%q) = %q does not parse: %v", s, red, err)
		}
		before, after := d.Pairs(), r.Pairs()
		if len(before) != len(after) {
			t.Fatalf("Redact(%q) = %q changed the pairs", s, red)
		}
		for i, p := range after {
			if isSecretKey(p.Key) && before[i].Value != "" && p.Value != Redacted {
				t.Fatalf("Redact(%q) = %q leaves %s", s, red, p.Key)
			}
		}
	})
}

func FuzzDSNToSocket(f *testing.F) {
	for _, s := range dsnSeeds {
		f.Add(s, dir, 5432)
		f.Add(s, `/run/it's a\dir`, 5433)
	}
	f.Fuzz(func(t *testing.T, s, dir string, port int) {
		out, _, err := DSNToSocket(s, dir, port)
		if err != nil {
			return
		}
		d, err := ParseDSN(out)
		if err != nil {
			t.Fatalf("DSNToSocket(%q, %q, %d) = %q does not parse: %v", s, dir, port, out, err)
		}
		if !d.isDSN() {
			t.Fatalf("DSNToSocket(%q) = %q is not a DSN", s, out)
		}
		if h, _ := d.Get("host"); h != dir {
			t.Fatalf("DSNToSocket(%q, %q) = %q: host %q", s, dir, out, h)
		}
		if _, ok := d.Get("hostaddr"); ok {
			t.Fatalf("DSNToSocket(%q) = %q keeps hostaddr", s, out)
		}
		if p, ok := d.Get("port"); ok && p != strconv.Itoa(port) || !ok && port != DefaultPort {
			t.Fatalf("DSNToSocket(%q, %d) = %q: port %q, %v", s, port, out, p, ok)
		}
		// Every other pair survives, in order; sslmode is the exception:
		// over a socket it is disable (TLS never applies there, and node
		// pg fails on any other mode), added beside sslrootcert & co.
		orig, _ := ParseDSN(s)
		var want, got []Pair
		for _, p := range orig.Pairs() {
			if p.Key != "host" && p.Key != "hostaddr" && p.Key != "port" && p.Key != "sslmode" {
				want = append(want, p)
			}
		}
		for _, p := range d.Pairs() {
			if p.Key == "sslmode" && p.Value != "disable" {
				t.Fatalf("DSNToSocket(%q) = %q: sslmode %q, want disable", s, out, p.Value)
			}
			if p.Key != "host" && p.Key != "port" && p.Key != "sslmode" {
				got = append(got, p)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("DSNToSocket(%q) = %q: pairs %q, want %q", s, out, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("DSNToSocket(%q) = %q: pair %d is %q, want %q", s, out, i, got[i], want[i])
			}
		}
		again, _, err := DSNToSocket(out, dir, port)
		if err != nil || again != out {
			t.Fatalf("DSNToSocket not idempotent: %q -> %q -> %q (%v)", s, out, again, err)
		}
	})
}
