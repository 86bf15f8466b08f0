package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// secretCases trigger every finding code whose message can quote a value,
// with a password in the value, in each dialect that carries one. SECRET
// stands for a password unique to the case; the test checks that the case
// does produce its code (it cannot pass by producing nothing) and that the
// password appears in no output.
type secretCase struct {
	name, code, doc string
	env             []string // shell environment (a value set outside the files)
}

var secretCases = []secretCase{
	{"UDS111 value set in the shell, URI userinfo", "UDS111", `
  app:
    image: x
    environment:
      DATABASE_URL: ${DB_URL}`, []string{"DB_URL=postgres://app:SECRET@db/app"}},
	{"UDS111 block scalar, URI", "UDS111", `
  app:
    image: x
    environment:
      DATABASE_URL: >
        postgres://app:SECRET@db/app`, nil},
	{"UDS111 block scalar, JDBC password param", "UDS111", `
  app:
    image: x
    environment:
      JDBC_URL: |
        jdbc:postgresql://db/app?user=app&password=SECRET`, nil},
	{"UDS127 URI in command", "UDS127", `
  job:
    image: x
    command: ["migrate", "--url", "postgres://app:SECRET@db/app"]`, nil},
	{"UDS127 JDBC in entrypoint", "UDS127", `
  job:
    image: x
    entrypoint: ["java", "-Ddb=jdbc:postgresql://db/app?user=app&password=SECRET", "-jar", "a.jar"]`, nil},
	{"UDS127 URI in a shell command", "UDS127", `
  job:
    image: x
    command: sh -c "pg_dump postgresql://app:SECRET@db/app > /backup/app.sql"`, nil},
	{"UDS127 keyword DSN in a shell command", "UDS127", `
  job:
    image: x
    command: sh -c "psql 'host=db dbname=app user=app password=SECRET' -f /m.sql"`, nil},
	{"UDS110 multi-host URI", "UDS110", `
  app:
    image: x
    environment:
      DATABASE_URL: postgres://app:SECRET@db:5432,db2:5432/app`, nil},
	{"UDS110 multi-host JDBC", "UDS110", `
  app:
    image: x
    environment:
      JDBC_URL: jdbc:postgresql://db:5432,db2:5432/app?password=SECRET`, nil},
	{"UDS104 DSN password", "UDS104", `
  app:
    image: x
    environment:
      PG_DSN: host=db dbname=app user=app password=SECRET sslmode=require`, nil},
	{"UDS104 PGSSLMODE beside PGPASSWORD", "UDS104", `
  app:
    image: x
    environment:
      PGHOST: db
      PGPASSWORD: SECRET
      PGSSLMODE: require`, nil},
	{"UDS129 JDBC socketFactory", "UDS129", `
  app:
    image: x
    environment:
      JDBC_URL: jdbc:postgresql://db/app?socketFactory=com.example.F&user=app&password=SECRET`, nil},
	{"UDS103 JDBC sslmode", "UDS103", `
  app:
    image: x
    environment:
      JDBC_URL: jdbc:postgresql://db/app?sslmode=require&password=SECRET`, nil},
	{"UDS122 unknown scheme", "UDS122", `
  app:
    image: x
    environment:
      GEO_URL: postgis://app:SECRET@db/app`, nil},
	{"UDS128 port mismatch, Npgsql", "UDS128", `
  app:
    image: x
    environment:
      DATABASE_URL: postgres://app:SECRET@db:6543/app`, nil},
	{"UDS121 pooler", "UDS121", `
  pgbouncer:
    image: bitnami/pgbouncer:1
  app:
    image: x
    environment:
      DATABASE_URL: postgres://app:SECRET@pgbouncer/app`, nil},
	{"UDS124 R2DBC userinfo", "UDS124", `
  app:
    image: x
    environment:
      R2DBC_URL: r2dbc:postgresql://app:SECRET@db/app`, nil},
	{"UDS120 application host beside a password", "UDS120", `
  app:
    image: x
    environment:
      DB_HOST: db
      DB_PASSWORD: SECRET`, nil},
	{"UDS204 socket file, Npgsql password", "UDS204", `
  app:
    image: x
    volumes: ["db-socket:/var/run/postgresql:ro"]
    environment:
      DB_HOST: /var/run/postgresql/.s.PGSQL.5432
      NPGSQL: Host=db;Username=app;Password=SECRET;Database=app`, nil},
	{"UDS215 relative host, URI userinfo", "UDS215", `
  app:
    image: x
    volumes: ["db-socket:/var/run/postgresql:ro"]
    environment:
      DATABASE_URL: postgres://app:SECRET@/app?host=var/run/postgresql`, nil},
	{"UDS216 socket sslmode, DSN password", "UDS216", `
  app:
    image: x
    volumes: ["db-socket:/var/run/postgresql:ro"]
    environment:
      PG_DSN: host=/var/run/postgresql dbname=app password=SECRET sslmode=prefer`, nil},
	{"UDS202 JDBC host, password param", "UDS202", `
  app:
    image: x
    volumes: ["db-socket:/var/run/postgresql:ro"]
    environment:
      JDBC_URL: jdbc:postgresql://db/app?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5432&password=SECRET`, nil},
	{"UDS205 PDO password", "UDS205", `
  app:
    image: x
    environment:
      DB_DSN: pgsql:host=/wrong/dir;dbname=app;user=app;password=SECRET`, nil},
	{"UDS154 unknown reader, URI userinfo (the socket forms it prints)", "UDS154", `
  app:
    image: x
    environment:
      APP_DB_URL: postgresql://app:SECRET@db:5432/app`, nil},
	{"UDS140 extra_hosts, URI userinfo", "UDS140", `
  app:
    image: x
    extra_hosts: ["db:10.0.0.5"]
    environment:
      DATABASE_URL: postgres://app:SECRET@db:5432/app`, nil},
	{"UDS141 name of two servers, JDBC password", "UDS141", `
  other:
    image: postgres:16
    networks:
      default:
        aliases: [db]
  app:
    image: x
    environment:
      JDBC_URL: jdbc:postgresql://db/app?user=app&password=SECRET`, nil},
	{"UDS142 network_mode, DSN", "UDS142", `
  app:
    image: x
    network_mode: host
    environment:
      DSN: host=db user=app password=SECRET dbname=app`, nil},
	{"UDS143 default in a reference, URI userinfo", "UDS143", `
  app:
    image: x
    environment:
      DATABASE_URL: ${DATABASE_URL:-postgres://app:SECRET@db:5432/app}`, nil},
	{"UDS128 Npgsql PSW synonym", "UDS128", `
  app:
    image: x
    environment:
      NPGSQL: Host=db;Port=6543;Username=app;PSW=SECRET;Database=app`, nil},
	{"UDS128 Npgsql host:port, SSL Password", "UDS128", `
  app:
    image: x
    environment:
      NPGSQL: Host=db:6543;Username=app;Password=pw1;SSL Password=SECRET;Database=app`, nil},
	{"UDS128 Npgsql single-quoted password with ;", "UDS128", `
  app:
    image: x
    environment:
      NPGSQL: Host=db;Port=6543;Username=app;Password='PW;SECRET';Database=app`, nil},
	{"UDS128 Npgsql doubled double quote", "UDS128", `
  app:
    image: x
    environment:
      NPGSQL: 'Host=db;Port=6543;Username=app;Password="a""SECRET";Database=app'`, nil},
	{"UDS163 Npgsql unterminated quote", "UDS163", `
  app:
    image: x
    environment:
      NPGSQL: Host=db;Username=app;Password='PW;SECRET;Database=app`, nil},
	{"UDS163 DSN unterminated quote", "UDS163", `
  app:
    image: x
    environment:
      PG_DSN: host='db dbname=app password=SECRET`, nil},
	{"error: port out of range, URI userinfo", "outside 1..65535", `
  app:
    image: x
    environment:
      DATABASE_URL: postgres://app:SECRET@db:99999/app`, nil},
	{"error: bad escape, JDBC password", "not a valid connection string", `
  app:
    image: x
    environment:
      JDBC_URL: jdbc:postgresql://db/app?password=SECRET%zz`, nil},
}

// TestNoPasswordInAnyFinding runs each secret case through every command
// and output format.
func TestNoPasswordInAnyFinding(t *testing.T) {
	for i, c := range secretCases {
		t.Run(c.name, func(t *testing.T) {
			secret := "Pw" + strings.Repeat("x", i%3) + "Z9q" + string(rune('a'+i%26)) + "Secret"
			var all strings.Builder
			for _, o := range secretOutputs(t, c.doc, c.env, secret) {
				all.WriteString(o.text)
				if strings.Contains(o.text, secret) {
					t.Errorf("uds-migrate %s shows the password:\n%s", o.args, trim(o.text))
				}
			}
			if !strings.Contains(all.String(), c.code) {
				t.Errorf("no %s in any output; the case no longer triggers it:\n%s", c.code, trim(all.String()))
			}
		})
	}
}

// TestNoShortPasswordInAnyFinding runs each secret case with a password of
// two characters, shorter than scrub's textual masking takes anywhere: it
// stands where the structure says a password is (userinfo, a password
// keyword, a password variable), so it is masked as a whole word.
func TestNoShortPasswordInAnyFinding(t *testing.T) {
	const secret = "Q7"
	word := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + secret + `($|[^A-Za-z0-9_])`)
	for _, c := range secretCases {
		t.Run(c.name, func(t *testing.T) {
			for _, o := range secretOutputs(t, c.doc, c.env, secret) {
				if word.MatchString(o.text) {
					t.Errorf("uds-migrate %s shows the password %q:\n%s", o.args, secret, trim(o.text))
				}
			}
		})
	}
}

type secretOutput struct{ args, text string }

// secretOutputs writes the case's project with secret for SECRET and
// returns what each command and format prints that must not hold a
// password: stderr always, stdout except where it is the compose file
// itself (migrate, revert) or a diff of it (-d).
func secretOutputs(t *testing.T, doc string, env []string, secret string) []secretOutput {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, strings.ReplaceAll(v, "SECRET", secret))
	}
	doc = "services:\n  db:\n    image: postgres:16\n    volumes: [\"db-socket:/var/run/postgresql\"]" +
		strings.ReplaceAll(doc, "SECRET", secret) + "\nvolumes:\n  db-socket:\n"
	if err := os.WriteFile(filepath.Join(dir, "compose.yml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	// The image x shows no reader: a DATABASE_URL is given one
	// (issue #20), so that the cases reach the code they name.
	var reader []string
	if strings.Contains(doc, "\n      DATABASE_URL:") {
		reader = []string{"--consumer", "app/DATABASE_URL=empty"}
	}
	var outs []secretOutput
	for _, args := range [][]string{
		{"compose.yml"}, {"--check", "compose.yml"}, {"-d", "compose.yml"},
		{"plan", "compose.yml"}, {"plan", "--format", "json", "compose.yml"}, {"plan", "--format", "sarif", "compose.yml"},
		{"plan", "--format", "gcc", "compose.yml"}, {"validate", "compose.yml"}, {"revert", "compose.yml"}, {"revert", "--check", "compose.yml"},
	} {
		cmd := args
		switch args[0] {
		case "validate", "revert":
		case "plan":
			cmd = append(append([]string{"plan"}, reader...), args[1:]...)
		default:
			cmd = append(slices.Clone(reader), args...)
		}
		for _, terminal := range []bool{false, true} {
			var out, errb bytes.Buffer
			runStyled(t, terminal, append([]string{"uds-migrate"}, cmd...), &out, &errb)
			text := errb.String()
			if args[0] != "compose.yml" && args[0] != "revert" && args[0] != "-d" {
				text += out.String()
			}
			outs = append(outs, secretOutput{styledArgs(terminal, args), text})
		}
	}
	return outs
}

// runStyled runs the command line, with terminal as a person at a
// terminal sees it (CLICOLOR_FORCE): each text finding followed by its
// source line and a caret, wide enough that no line is shortened.
func runStyled(t testing.TB, terminal bool, args []string, stdout, stderr *bytes.Buffer) int {
	if terminal {
		t.Setenv("CLICOLOR_FORCE", "1")
		t.Setenv("COLUMNS", "1000")
		defer os.Unsetenv("CLICOLOR_FORCE")
	}
	return run(args, stdout, stderr)
}

// styledArgs names a run of runStyled in a test's message.
func styledArgs(terminal bool, args []string) string {
	if terminal {
		return "(on a terminal) " + strings.Join(args, " ")
	}
	return strings.Join(args, " ")
}

// FuzzNoPasswordLeak puts a fuzzed password into each secret case (every
// dialect and finding code above) and checks that no output of any command
// or format shows it: findings, plan text/JSON/SARIF, validate, revert and
// errors, piped and as on a terminal (the source line under each finding). The password is wrapped in markers so that it cannot be a word
// the tool prints on its own, and kept to characters every dialect takes
// unescaped. shape puts a compose reference before, inside or after the
// password, or in place of the scheme (pwRefShapes): then neither half of
// the password may show either.
//
//	go test ./cmd/uds-migrate -run '^$' -fuzz FuzzNoPasswordLeak -fuzztime 5m
func FuzzNoPasswordLeak(f *testing.F) {
	for i := range secretCases {
		for shape := range pwRefShapes {
			f.Add(uint8(i), uint8(shape), "a.b-c_d~e")
		}
	}
	f.Add(uint8(slices.IndexFunc(secretCases, func(c secretCase) bool { return strings.Contains(c.doc, "'PW;SECRET'") })), uint8(0), "a;b=c'd")
	f.Fuzz(func(t *testing.T, which, shape uint8, pw string) {
		c := secretCases[int(which)%len(secretCases)]
		// Inside an ADO.NET single-quoted value (Npgsql) a password may
		// also hold ';', '=' and a quote (written doubled).
		adoQuoted := strings.Contains(c.doc, "'PW;SECRET'")
		clean := strings.Map(func(r rune) rune {
			if r < 128 && (r == '.' || r == '-' || r == '_' || r == '~' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
				return r
			}
			if adoQuoted && (r == ';' || r == '=' || r == '\'') {
				return r
			}
			return -1
		}, pw)
		secret := "Pq" + clean + "Zq9"
		written := secret
		if adoQuoted {
			written = strings.ReplaceAll(secret, "'", "''")
		}
		head, tail := written[:len(written)/2], written[len(written)/2:]
		doc := c.doc
		written, doc = pwRefShapes[int(shape)%len(pwRefShapes)](head, tail, doc)
		dir := t.TempDir()
		t.Chdir(dir)
		for _, kv := range c.env {
			k, v, _ := strings.Cut(kv, "=")
			t.Setenv(k, strings.ReplaceAll(v, "SECRET", secret))
		}
		doc = "services:\n  db:\n    image: postgres:16\n    volumes: [\"db-socket:/var/run/postgresql\"]" +
			strings.ReplaceAll(doc, "SECRET", written) + "\nvolumes:\n  db-socket:\n"
		if err := os.WriteFile(filepath.Join(dir, "compose.yml"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"--check", "compose.yml"}, {"plan", "--format", "json", "compose.yml"}, {"plan", "--format", "sarif", "compose.yml"},
			{"validate", "compose.yml"}, {"revert", "--check", "compose.yml"},
		} {
			for _, terminal := range []bool{false, true} {
				var out, errb bytes.Buffer
				runStyled(t, terminal, append([]string{"uds-migrate"}, args...), &out, &errb)
				text := errb.String() + out.String()
				for _, part := range []string{secret, written, head, tail} {
					if strings.Contains(text, part) {
						t.Fatalf("%s: uds-migrate %s shows %q of the password %q:\n%s", c.name, styledArgs(terminal, args), part, secret, trim(text))
					}
				}
			}
		}
	})
}

// pwRefShapes write a password of two halves into a case's document with
// compose references around or inside it; each returns the password as
// written and the document.
var pwRefShapes = []func(head, tail, doc string) (string, string){
	func(h, t, doc string) (string, string) { return h + t, doc },
	func(h, t, doc string) (string, string) { return "${PW_HEAD:-" + h + "}" + t, doc },
	func(h, t, doc string) (string, string) { return h + "${PW_MID:-}" + t, doc },
	func(h, t, doc string) (string, string) { return h + "${PW_TAIL:-" + t + "}", doc },
	func(h, t, doc string) (string, string) { return h + "$${PW_LITERAL}" + t, doc },
	func(h, t, doc string) (string, string) {
		for _, scheme := range []string{"postgresql+asyncpg", "postgresql", "postgres", "postgis"} {
			if strings.Contains(doc, " "+scheme+"://") {
				return h + t, strings.Replace(doc, " "+scheme+"://", " ${DB_SCHEME:-"+scheme+"}://", 1)
			}
		}
		return h + t, doc
	},
}
