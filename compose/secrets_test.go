package compose

import (
	"context"
	"path/filepath"
	"testing"
)

// TestScrub checks the second line of defence: every password of the
// project is masked in a message that quotes it, whatever built the
// message, also where the same text is a user's or a database's name
// (trial 10 W3: kitsune:kitsune@.../kitsune); a "password" that is also a
// service's name, or a word the tool prints, is left alone.
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
      SAME: postgres://kitsune:kitsune@db/kitsune
`
	p, err := Load(context.Background(), []Input{{Path: filepath.Join(t.TempDir(), "compose.yml"), Data: []byte(doc)}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secrets := p.Secrets()
	msg := "superset/X: J9dbcSecret N9pgsqlSecret P9gpassSecret U9riSecret without a password, postgres://kitsune:****@/kitsune?host=/x"
	got := Scrub(msg, secrets)
	if want := "superset/X: **** **** **** **** without a password, postgres://****:****@/****?host=/x"; got != want {
		t.Errorf("scrub(%q) = %q, want %q (secrets %q)", msg, got, want, secrets)
	}
}

// TestScrubNpgsqlAndShort checks the passwords of Npgsql's other keywords
// (PSW, SSL Password), quoted values whole (a ';' or a doubled quote
// inside), and passwords shorter than MinSecret, which are masked where
// they stand as a word and nowhere else.
func TestScrubNpgsqlAndShort(t *testing.T) {
	doc := `services:
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: k3
  app:
    image: x
    environment:
      A: Host=db;Username=app;PSW=Psw9Secret;Database=app
      B: Host=db;Username=app;SSL Password=Ssl9Secret;Database=app
      C: Host=db;Username=app;Password='Qu;9Secret';Database=app
      D: 'Host=db;Username=app;Password="Dq""9Secret";Database=app'
      E: postgres://app:Q7@db/app
`
	p, err := Load(context.Background(), []Input{{Path: filepath.Join(t.TempDir(), "compose.yml"), Data: []byte(doc)}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secrets := p.Secrets()
	msg := `app/X: Psw9Secret Ssl9Secret Qu;9Secret Dq"9Secret Q7 k3 (Q7x uses k3's port)`
	want := `app/X: **** **** **** **** **** **** (Q7x uses ****'s port)`
	if got := Scrub(msg, secrets); got != want {
		t.Errorf("scrub(%q) = %q, want %q (secrets %q)", msg, got, want, secrets)
	}
}
