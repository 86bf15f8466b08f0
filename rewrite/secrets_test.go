package rewrite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestScrub checks the second line of defence: every password of the
// project is masked in a message that quotes it, whatever built the
// message; a "password" that is also a name in the file, or a word the
// tool prints, is left alone.
func TestScrub(t *testing.T) {
	doc := `services:
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: password
  superset:
    image: x
    environment:
      DATABASE_URL: postgresql://superset:superset@db/superset
      JDBC_URL: jdbc:postgresql://db/app?user=app&password=J9dbcSecret
      NPGSQL: Host=db;Username=app;Password=N9pgsqlSecret;Database=app
      PGPASSWORD: P9gpassSecret
      OTHER: postgres://u:U9riSecret@db/x
`
	p, err := load(context.Background(), []Input{{Path: filepath.Join(t.TempDir(), "compose.yml"), Data: []byte(doc)}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	secrets := p.secrets()
	msg := "superset/X: J9dbcSecret N9pgsqlSecret P9gpassSecret U9riSecret without a password"
	got := scrub(msg, secrets)
	if want := "superset/X: **** **** **** **** without a password"; got != want {
		t.Errorf("scrub(%q) = %q, want %q (secrets %q)", msg, got, want, secrets)
	}
	err = scrubErr(&PosError{Pos: Pos{"f", 1, 1}, Msg: "bad U9riSecret"}, secrets)
	if strings.Contains(err.Error(), "U9riSecret") {
		t.Errorf("scrubErr left the password: %v", err)
	}
}
