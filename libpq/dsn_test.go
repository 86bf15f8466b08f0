package libpq

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseDSN(t *testing.T) {
	tests := []struct {
		in    string
		pairs []Pair
	}{
		{"host=pg port=5432 user=worker dbname=jobs sslmode=disable application_name=worker",
			[]Pair{{"host", "pg"}, {"port", "5432"}, {"user", "worker"}, {"dbname", "jobs"}, {"sslmode", "disable"}, {"application_name", "worker"}}},
		{"host = pg\tport= 5432 \n dbname =jobs  ", []Pair{{"host", "pg"}, {"port", "5432"}, {"dbname", "jobs"}}},
		{`password='it\'s a \\ secret' user=''`, []Pair{{"password", `it's a \ secret`}, {"user", ""}}},
		{`host='a'port=1`, []Pair{{"host", "a"}, {"port", "1"}}}, // libpq needs no blank after a quote
		{`options=-c\ search_path=x user=a\\b`, []Pair{{"options", "-c search_path=x"}, {"user", `a\b`}}},
		{`host= port=5432`, []Pair{{"host", "port=5432"}}}, // as libpq: blanks after '=' are skipped
		{`host=`, []Pair{{"host", ""}}},
		{`host=a\`, []Pair{{"host", "a"}}},
		{"", nil},
		{"   ", nil},
		{"host=" + ph1 + " port=" + ph2 + " dbname=" + ph3, []Pair{{"host", ph1}, {"port", ph2}, {"dbname", ph3}}},
		{"host=pg " + ph1 + " dbname=x " + ph2 + ph3, []Pair{{"host", "pg"}, {"dbname", "x"}}}, // opaque placeholder tokens
		{"host=pg dbname=x a'b=c", []Pair{{"host", "pg"}, {"dbname", "x"}, {"a'b", "c"}}},
	}
	for _, tt := range tests {
		d, err := ParseDSN(tt.in)
		if err != nil {
			t.Errorf("ParseDSN(%q): %v", tt.in, err)
			continue
		}
		if got := d.Pairs(); !reflect.DeepEqual(got, tt.pairs) {
			t.Errorf("ParseDSN(%q).Pairs() = %q, want %q", tt.in, got, tt.pairs)
		}
		if got := d.String(); got != tt.in {
			t.Errorf("ParseDSN(%q).String() = %q", tt.in, got)
		}
	}
	d, _ := ParseDSN("host=a host=b dbname=c")
	if v, ok := d.Get("host"); !ok || v != "b" {
		t.Errorf("Get(host) = %q, %v: last occurrence should win", v, ok)
	}
	if _, ok := d.Get("Host"); ok {
		t.Errorf("Get is case-sensitive")
	}
}

func TestParseDSNErrors(t *testing.T) {
	for _, s := range []string{
		"host",
		"host=pg dbname",
		"host=pg x y=1",
		"=pg",
		"host='pg",
		`host='pg\'`,
		"postgres://h/db",
		"hello world",
	} {
		if _, err := ParseDSN(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseDSN(%q) error = %v, want ErrSyntax", s, err)
		}
		if _, _, err := DSNToSocket(s, dir, 5432); !errors.Is(err, ErrSyntax) {
			t.Errorf("DSNToSocket(%q) error = %v, want ErrSyntax", s, err)
		}
	}
	_, err := ParseDSN("password='Hunter2secret")
	if err == nil || strings.Contains(err.Error(), "Hunter2") {
		t.Errorf("error leaks or is missing: %v", err)
	}
}

func TestIsDSN(t *testing.T) {
	for s, want := range map[string]bool{
		"host=pg port=5432 user=worker dbname=jobs sslmode=disable application_name=worker": true,
		"host=pg dbname=x":                         true,
		"dbname=x user=y":                          true,
		"hostaddr=10.0.0.1 port=5432":              true,
		"host=pg pool_max_conns=10":                true,
		"host=" + ph1 + " dbname=" + ph2:           true,
		"host=pg " + ph1 + " dbname=x":             true,
		"host=pg":                                  false, // one token
		"port=5432 sslmode=disable":                false, // no host/hostaddr/dbname/user
		"Host=pg;Port=5432;Database=x":             false, // Npgsql
		"host=pg Port=5432":                        false, // keywords are case-sensitive
		"host=pg dbname=x foo=bar":                 false, // unknown keyword
		"key=value other=thing":                    false,
		"postgres://u:p@h/db":                      false,
		"redis://cache:6379/0":                     false,
		"http://users:8080":                        false,
		"jdbc:mysql://h/db?user=a&password=b":      false,
		"hello":                                    false,
		"":                                         false,
		"-Dspring.datasource.url=jdbc:postgresql:": false,
		"host=pg dbname='x":                        false,
		ph1:                                        false,
	} {
		if got := IsDSN(s); got != want {
			t.Errorf("IsDSN(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestDSNToSocket(t *testing.T) {
	tests := []struct {
		in    string
		dir   string
		port  int
		want  string
		notes []string
	}{
		{ // brief example / case 03
			"host=pg port=5432 user=worker dbname=jobs sslmode=disable application_name=worker", dir, 5432,
			"host=/var/run/postgresql port=5432 user=worker dbname=jobs sslmode=disable application_name=worker", nil},
		{ // port set when different
			"host=pg port=5432 dbname=jobs", dir, 5433, "host=/var/run/postgresql port=5433 dbname=jobs", nil},
		{ // port added after host when absent and not 5432
			"user=w host=pg dbname=jobs", dir, 5433, "user=w host=/var/run/postgresql port=5433 dbname=jobs", nil},
		{ // no port token, default port: nothing added
			"host=pg dbname=jobs", dir, 5432, "host=/var/run/postgresql dbname=jobs", nil},
		{ // blanks, quotes and order kept
			"  host = 'pg'\tdbname='my db'  user=u  ", dir, 5432, "  host = '/var/run/postgresql'\tdbname='my db'  user=u  ", nil},
		{ // hostaddr removed
			"host=pg hostaddr=10.0.0.5 dbname=x", dir, 5432, "host=/var/run/postgresql dbname=x", nil},
		{
			"hostaddr=10.0.0.5 host=pg dbname=x", dir, 5432, "host=/var/run/postgresql dbname=x", nil},
		{ // hostaddr without host becomes the host token
			"dbname=x hostaddr=10.0.0.5 user=u", dir, 5432, "dbname=x host=/var/run/postgresql user=u", nil},
		{ // neither: host put in front
			"dbname=x user=u", dir, 5432, "host=/var/run/postgresql dbname=x user=u", nil},
		{
			"dbname=x user=u", dir, 6000, "host=/var/run/postgresql port=6000 dbname=x user=u", nil},
		{ // quote only if needed
			"host=pg dbname=x", "/run/my sock", 5432, `host='/run/my sock' dbname=x`, nil},
		{
			"host=pg dbname=x", `/run/it's`, 5432, `host='/run/it\'s' dbname=x`, nil},
		{ // quoted value followed directly by the next keyword
			"host='pg'dbname=x", dir, 5433, "host='/var/run/postgresql' port=5433 dbname=x", nil},
		{ // dangling backslash at the end before an added token
			`dbname=x user=u\`, dir, 5432, `host=/var/run/postgresql dbname=x user=u\`, nil},
		{ // placeholders
			"host=" + ph1 + " port=" + ph2 + " dbname=" + ph3 + " " + ph1, dir, 5432,
			"host=/var/run/postgresql port=5432 dbname=" + ph3 + " " + ph1, nil},
		{ // an sslmode some driver fails on over a socket becomes disable, with UDS104
			"host=pg dbname=x sslmode=verify-full", dir, 5432, "host=/var/run/postgresql dbname=x sslmode=disable", []string{"UDS104"}},
		{
			"host=pg dbname=x sslmode='prefer' sslrootcert=/c.pem", dir, 5432, "host=/var/run/postgresql dbname=x sslmode='disable' sslrootcert=/c.pem", []string{"UDS104"}},
		{
			"host=pg dbname=x sslkey=/k.pem", dir, 5432, "host=/var/run/postgresql dbname=x sslkey=/k.pem sslmode=disable", []string{"UDS104"}},
		{
			"host=pg dbname=x sslmode=" + ph1, dir, 5432, "host=/var/run/postgresql dbname=x sslmode=disable", []string{"UDS104"}},
		{ // already socket: unchanged
			"host=/var/run/postgresql port=5432 user=worker", dir, 5432, "host=/var/run/postgresql port=5432 user=worker", nil},
		{
			"host='/var/run/postgresql' dbname=x", dir, 5432, "host='/var/run/postgresql' dbname=x", nil},
	}
	for _, tt := range tests {
		got, notes, err := DSNToSocket(tt.in, tt.dir, tt.port)
		if err != nil {
			t.Errorf("DSNToSocket(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("DSNToSocket(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		var codes []string
		for _, n := range notes {
			codes = append(codes, n.Code)
		}
		if !reflect.DeepEqual(codes, tt.notes) {
			t.Errorf("DSNToSocket(%q) notes = %v, want %v", tt.in, notes, tt.notes)
		}
		again, _, err := DSNToSocket(got, tt.dir, tt.port)
		if err != nil || again != got {
			t.Errorf("DSNToSocket not idempotent on %q: %q, %v", got, again, err)
		}
		d, err := ParseDSN(got)
		if err != nil {
			t.Fatalf("output %q does not parse: %v", got, err)
		}
		if h, _ := d.Get("host"); h != tt.dir {
			t.Errorf("host of %q = %q", got, h)
		}
		if _, ok := d.Get("hostaddr"); ok {
			t.Errorf("hostaddr left in %q", got)
		}
	}
}

func TestDSNToSocketErrors(t *testing.T) {
	for _, s := range []string{"host=a,b dbname=x", "hostaddr=10.0.0.1,10.0.0.2 dbname=x", "host='a, b' dbname=x"} {
		if _, _, err := DSNToSocket(s, dir, 5432); !errors.Is(err, ErrMultiHost) {
			t.Errorf("DSNToSocket(%q) error = %v, want ErrMultiHost", s, err)
		}
	}
	for _, s := range []string{"host=pg", "key=value other=thing", "", "Host=pg;Port=5432"} {
		if _, _, err := DSNToSocket(s, dir, 5432); !errors.Is(err, ErrNotPostgres) {
			t.Errorf("DSNToSocket(%q) error = %v, want ErrNotPostgres", s, err)
		}
	}
	if _, _, err := DSNToSocket("host=pg dbname=x", "rel", 5432); err == nil {
		t.Errorf("relative dir accepted")
	}
	if _, _, err := DSNToSocket("host=pg dbname=x", dir, 0); err == nil {
		t.Errorf("port 0 accepted")
	}
}

func TestDSNFromSocket(t *testing.T) {
	orig := "host=pg port=5432 user=worker dbname=jobs sslmode=disable application_name=worker"
	s, _, err := DSNToSocket(orig, dir, 5432)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DSNFromSocket(s, "pg", 5432)
	if err != nil || back != orig {
		t.Errorf("DSNFromSocket(DSNToSocket(%q)) = %q, %v", orig, back, err)
	}
	for _, tt := range []struct {
		in, host string
		port     int
		want     string
	}{
		{"host=/var/run/postgresql port=5433 dbname=x", "pg", 0, "host=pg port=5433 dbname=x"},
		{"host=/var/run/postgresql port=5433 dbname=x", "pg", 5432, "host=pg port=5432 dbname=x"},
		{"dbname=x user=u", "pg", 6000, "host=pg port=6000 dbname=x user=u"},
		{"host=/s dbname=x", "my host", 0, "host='my host' dbname=x"},
	} {
		got, err := DSNFromSocket(tt.in, tt.host, tt.port)
		if err != nil || got != tt.want {
			t.Errorf("DSNFromSocket(%q, %q, %d) = %q, %v; want %q", tt.in, tt.host, tt.port, got, err, tt.want)
		}
	}
	if _, err := DSNFromSocket("host=/s dbname=x", "", 0); err == nil {
		t.Errorf("empty host accepted")
	}
}

func TestRedact(t *testing.T) {
	const pw = "Sup3rS3cret"
	tests := []struct{ in, want string }{
		{"postgres://api:" + pw + "@db:5432/api?sslmode=disable", "postgres://api:****@db:5432/api?sslmode=disable"},
		{"postgresql+asyncpg://api:" + pw + "@db/api?password=" + pw + "&sslpassword=" + pw, "postgresql+asyncpg://api:****@db/api?password=****&sslpassword=****"},
		{"postgres://db/api?user=u&Password=" + pw, "postgres://db/api?user=u&Password=****"},
		{"postgres://db/api?pass%77ord=" + pw, "postgres://db/api?pass%77ord=****"},
		{"postgres://api@db/api", "postgres://api@db/api"},
		{"postgres://api:@db/api", "postgres://api:@db/api"},
		{"postgres://api:" + ph1 + "@db/api", "postgres://api:****@db/api"},
		// malformed URIs: redacted textually
		{"postgres://api:p@ss" + pw + "@db/api", "postgres://api:****@db/api"},
		{"postgres://api:" + pw + "%zz@db/api", "postgres://api:****@db/api"},
		{"postgres://api:" + pw + "/x@db/api", "postgres://api:****@db/api"},
		{"postgres://db/api?x=%zz&password=" + pw, "postgres://db/api?x=%zz&password=****"},
		// DSNs
		{"host=pg user=u password=" + pw + " dbname=x", "host=pg user=u password=**** dbname=x"},
		{"host=pg password = '" + pw + ` it\'s' dbname=x`, "host=pg password = '****' dbname=x"},
		{"host=pg password=" + pw + `\ x dbname=x`, "host=pg password=**** dbname=x"},
		{"host=pg sslpassword=" + pw + " PASSWORD=" + pw, "host=pg sslpassword=**** PASSWORD=****"},
		{"host=pg password=", "host=pg password="},
		// malformed DSNs
		{"host=pg password='" + pw, "host=pg password=****"},
		{"host pg password=" + pw + " x", "host pg password=**** x"},
	}
	for _, tt := range tests {
		got := Redact(tt.in)
		if got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "S3cret") {
			t.Errorf("Redact(%q) leaves the password: %q", tt.in, got)
		}
	}
}
