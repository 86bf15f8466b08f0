package jdbc

import (
	"errors"
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"jdbc:postgresql://billing-db/billing?sslmode=require&ApplicationName=billing&tcpKeepAlive=true",
	"jdbc:postgresql://postgres:5432/appdb",
	"jdbc:postgresql://database:5432/shop?currentSchema=shop&ApplicationName=shop",
	"jdbc:postgresql://" + ph1 + ":" + ph2 + "/" + ph3 + "?currentSchema=core",
	"jdbc:postgresql://localhost:5432/appdb?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory" + ph1 + "&socketFactoryArg=/socket-postgresql/.s.PGSQL.5432",
	"jdbc:postgresql://localhost:5432/appdb?" + sf + sock,
	"jdbc:postgresql:database",
	"jdbc:postgresql:/",
	"jdbc:postgresql:",
	"jdbc:postgresql://host/",
	"jdbc:postgresql://[::1]:5740/accounting",
	"jdbc:postgresql://h1:5432,h2:5433/db",
	"jdbc:postgresql://?service=myservice",
	"jdbc:postgresql:///db?ssl&&x=%41&",
	"jdbc:postgresql://h/db?password=secret&ssl=true&sslmode=VERIFY-full",
	"jdbc:postgresql://h/db?x=%" + ph1,
	"jdbc:postgresql:a/b?x=1",
	"jdbc:postgresql://u:p@h/db",
	"jdbc:mysql://db:3306/app",
	"redis://cache:6379/0",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		red := Redact(s) // must not panic either way
		if err != nil {
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrNotPostgres) {
				t.Fatalf("Parse(%q): unexpected error kind %v", s, err)
			}
			return
		}
		if got := u.String(); got != s {
			t.Fatalf("Parse(%q).String() = %q", s, got)
		}
		for _, p := range u.Params {
			u.Param(p.Key)
		}
		u.IsUnixSocket()
		// Redact keeps the structure and hides every secret parameter.
		r, err := Parse(red)
		if err != nil {
			t.Fatalf("Redact(%q) = %q does not parse: %v", s, red, err)
		}
		if len(r.Params) != len(u.Params) {
			t.Fatalf("Redact(%q) = %q changed the parameters", s, red)
		}
		for i, p := range r.Params {
			if isSecretKey(p.Key) && !p.bare && u.Params[i].Value != "" && p.Value != Redacted {
				t.Fatalf("Redact(%q) = %q leaves %s", s, red, p.Key)
			}
		}
	})
}

func FuzzToSocket(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, sock)
	}
	f.Add("jdbc:postgresql://db/app", "/run/a+b&c%d/.s.PGSQL.5432")
	f.Add("jdbc:postgresql://db/app", "/run/"+ph1+"/.s.PGSQL.5432")
	f.Fuzz(func(t *testing.T, s, file string) {
		out, notes, err := ToSocket(s, file)
		if err != nil {
			return
		}
		u, err := Parse(out)
		if err != nil {
			t.Fatalf("ToSocket(%q, %q) = %q does not parse: %v", s, file, out, err)
		}
		if len(u.Hosts) != 1 || u.Hosts[0].Name != "localhost" || !u.HasAuthority {
			t.Fatalf("ToSocket(%q) = %q: host is not localhost", s, out)
		}
		if !u.isSocketForm(file) || !u.IsUnixSocket() {
			t.Fatalf("ToSocket(%q, %q) = %q is not the socket form", s, file, out)
		}
		if arg, _ := u.Param("socketFactoryArg"); arg != file {
			t.Fatalf("ToSocket(%q, %q) = %q: socketFactoryArg decodes to %q", s, file, out, arg)
		}
		for _, p := range u.Params {
			if req, _ := sslRequired(p); req {
				t.Fatalf("ToSocket(%q) = %q keeps %s", s, out, p)
			}
		}
		again, notes2, err := ToSocket(out, file)
		if err != nil || again != out {
			t.Fatalf("ToSocket not idempotent: %q -> %q -> %q (%v)", s, out, again, err)
		}
		for _, n := range notes2 {
			if !strings.HasPrefix(n.Message, "kept ") {
				t.Fatalf("second ToSocket(%q) still drops something: %v", out, n)
			}
		}
		_ = notes
		if out == s {
			return // already in socket form, returned unchanged
		}
		// The original's non-socket, non-SSL parameters survive in order.
		orig, _ := Parse(s)
		var want []Param
		for _, p := range orig.Params {
			if req, _ := sslRequired(p); !req && p.Key != paramSocketFactory && p.Key != paramSocketFactoryArg {
				want = append(want, p)
			}
		}
		got := u.Params[:len(u.Params)-2]
		if n := len(want); n > 0 && want[n-1].bare && want[n-1].Key == "" && len(got) == n-1 {
			want = want[:n-1]
		}
		if len(got) != len(want) {
			t.Fatalf("ToSocket(%q) = %q: parameters %v, want %v", s, out, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("ToSocket(%q) = %q: parameter %d is %v, want %v", s, out, i, got[i], want[i])
			}
		}
		if back, err := FromSocket(out, "db", ""); err != nil {
			t.Fatalf("FromSocket(%q): %v", out, err)
		} else if _, err := Parse(back); err != nil {
			t.Fatalf("FromSocket(%q) = %q does not parse: %v", out, back, err)
		}
	})
}
