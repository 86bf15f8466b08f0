package bench

import (
	"strings"
	"testing"
)

func TestMaskDSN(t *testing.T) {
	cases := map[string]string{
		"postgres://app:s3cret@db:5432/appdb?sslmode=disable":    "postgres://app:****@db:5432/appdb?sslmode=disable",
		"postgresql://app:p@ss/w0rd@db/appdb":                    "postgresql://app:****@db/appdb",
		"postgres://app@db/appdb?password=s3cret&sslmode=off":    "postgres://app@db/appdb?password=****&sslmode=off",
		"host=db user=app password=s3cret dbname=appdb":          "host=db user=app password=**** dbname=appdb",
		"host=db password = 'it\\'s a \\\\ secret' dbname=appdb": "host=db password = **** dbname=appdb",
		"postgres://app@db:5432/appdb":                           "postgres://app@db:5432/appdb",
		"failed: cannot parse `postgres://u:pw@h/d`: bad port":   "failed: cannot parse `postgres://u:****@h/d`: bad port",
	}
	for in, want := range cases {
		if got := MaskDSN(in); got != want {
			t.Errorf("MaskDSN(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

func TestRedactMasksLiteralSecrets(t *testing.T) {
	got := Redact("auth failed for s3cr&t (s3cr%26t) as app", "s3cr&t", "ab")
	if got != "auth failed for **** (****) as app" {
		t.Errorf("Redact = %q", got)
	}
}

func TestExistingDerivesSocketConfig(t *testing.T) {
	ep, err := Existing("postgres://app:s3cret@db.example:6543/appdb?sslmode=require", "/run/pg")
	if err != nil {
		t.Fatal(err)
	}
	if ep.Socket.Host != "/run/pg" || ep.Socket.Port != 6543 || ep.Socket.User != "app" ||
		ep.Socket.Database != "appdb" || ep.Socket.Password != "s3cret" || ep.Socket.TLSConfig != nil {
		t.Errorf("socket config %+v", ep.Socket)
	}
	if ep.TCP.Host != "db.example" || ep.TCP.TLSConfig == nil {
		t.Errorf("tcp config changed: host %q tls %v", ep.TCP.Host, ep.TCP.TLSConfig != nil)
	}
	if got := Endpoint(ep.Socket); got != "/run/pg/.s.PGSQL.6543 user=app dbname=appdb" {
		t.Errorf("Endpoint(socket) = %q", got)
	}
	if strings.Contains(ep.Target, "s3cret") {
		t.Errorf("target %q shows the password", ep.Target)
	}
	for _, bad := range [][2]string{{"postgres://u:pw@h/d", "run/pg"}, {"host=/tmp user=u password=pw", "/tmp"}, {"postgres://u:pw@h:notaport/d", "/tmp"}} {
		_, err := Existing(bad[0], bad[1])
		if err == nil {
			t.Errorf("Existing(%q, %q) accepted", bad[0], bad[1])
		} else if strings.Contains(err.Error(), "pw@") || strings.Contains(err.Error(), "password=pw") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}
