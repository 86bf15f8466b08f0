package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The password property: whatever dialect carries a password and however
// compose references build it (a reference before, inside or after the
// password, standing for the scheme, wrapping the whole value, or the value
// set in .env, an env_file or the shell), no part of it appears in any
// finding, plan (text, JSON, SARIF, gcc), validate report or error, piped
// or on a terminal (where each finding quotes its source line).
//
// A password is three fragments; the shapes put references between them,
// so a redactor that masks only the text up to a reference, or only the
// interpolated value, leaves a fragment visible and the test names it.

var pwFragments = [3]string{"Qx7Kpv", "Zr4Wmq", "Jt2Vny"}

// pwDialects are values of every dialect that carries a password, PW
// standing for it.
var pwDialects = []struct{ name, key, value string }{
	{"uri userinfo", "DATABASE_URL", "postgres://app:PW@db:5432/app"},
	{"uri password param", "DATABASE_URL", "postgresql://app@db:5432/app?sslmode=require&password=PW"},
	{"sqlalchemy", "SQLALCHEMY_DATABASE_URI", "postgresql+psycopg2://app:PW@db/app"},
	{"multi-host uri", "DATABASE_URL", "postgres://app:PW@db:5432,db2:5432/app"},
	{"keyword dsn", "PG_DSN", "host=db port=5432 dbname=app user=app password=PW sslmode=require"},
	{"keyword dsn quoted", "PG_DSN", "host=db dbname=app user=app password='PW'"},
	{"jdbc", "JDBC_URL", "jdbc:postgresql://db:5432/app?user=app&password=PW"},
	{"jdbc sslpassword", "JDBC_URL", "jdbc:postgresql://db:5432/app?ssl=true&sslpassword=PW"},
	{"npgsql", "NPGSQL", "Host=db;Port=5432;Database=app;Username=app;Password=PW"},
	{"npgsql psw", "NPGSQL", "Host=db;Port=6543;Database=app;PSW=PW"},
	{"pdo", "DB_DSN", "pgsql:host=db;port=5432;dbname=app;user=app;password=PW"},
	{"r2dbc", "R2DBC_URL", "r2dbc:postgresql://app:PW@db:5432/app"},
	{"celery", "CELERY_RESULT_BACKEND", "db+postgresql://app:PW@db/app"},
	{"unknown scheme", "GEO_URL", "postgis://app:PW@db/app"},
	{"pooler", "DATABASE_URL", "postgres://app:PW@pgbouncer/app"},
	{"password variable", "PGPASSWORD", "PW"},
	{"app password variable", "DB_PASSWORD", "PW"},
}

// pwShape builds a value from a dialect's template: it returns the value
// as written in the compose file, and the files (.env, an env_file) and
// shell variables it needs.
type pwShape struct {
	name string
	// pw writes the password as the value holds it.
	pw func() string
	// wrap turns the value into what the compose file holds; files and env
	// get what the shape moves elsewhere.
	wrap func(key, value string, files map[string]string, env map[string]string) string
}

func fragments(sep1, sep2 string) string {
	return pwFragments[0] + sep1 + pwFragments[1] + sep2 + pwFragments[2]
}

func asWritten(_, v string, _, _ map[string]string) string { return v }

var pwShapes = []pwShape{
	{"plain", func() string { return fragments("", "") }, asWritten},
	{"reference before", func() string { return "${PW_HEAD:-" + pwFragments[0] + "}" + fragments("", "")[len(pwFragments[0]):] }, asWritten},
	{"reference inside", func() string { return pwFragments[0] + "${PW_MID:-" + pwFragments[1] + "}" + pwFragments[2] }, asWritten},
	{"reference after", func() string { return fragments("", "")[:12] + "${PW_TAIL:-" + pwFragments[2] + "}" }, asWritten},
	{"bare reference inside, set in .env", func() string { return pwFragments[0] + "${PW_MID}" + pwFragments[2] }, func(_, v string, files, _ map[string]string) string {
		files[".env"] += "PW_MID=" + pwFragments[1] + "\n"
		return v
	}},
	{"whole password a reference", func() string { return "${DB_PW:-" + fragments("", "") + "}" }, asWritten},
	{"scheme or host a reference", func() string { return fragments("", "") }, func(_, v string, _, _ map[string]string) string {
		if i := strings.Index(v, "://"); i > 0 && !strings.HasPrefix(v, "jdbc:") && !strings.HasPrefix(v, "r2dbc:") {
			return "${DB_SCHEME:-" + v[:i] + "}" + v[i:]
		}
		return strings.Replace(v, "db", "${DB_HOST:-db}", 1)
	}},
	{"whole value a default", func() string { return fragments("", "") }, func(k, v string, _, _ map[string]string) string {
		return "${" + k + ":-" + v + "}"
	}},
	{"default and a suffix", func() string { return fragments("", "") }, func(k, v string, _, _ map[string]string) string {
		return "${" + k + ":-" + v + "}${SUFFIX}"
	}},
	{"value in .env", func() string { return pwFragments[0] + "${PW_MID:-" + pwFragments[1] + "}" + pwFragments[2] }, func(k, v string, files, _ map[string]string) string {
		files[".env"] += k + "=" + v + "\n"
		return "${" + k + "}"
	}},
	{"value in the shell", func() string { return fragments("", "") }, func(k, v string, _, env map[string]string) string {
		env["SHELL_"+k] = v
		return "${SHELL_" + k + "}"
	}},
	{"value in an env_file", func() string { return fragments("", "") }, func(k, v string, files, _ map[string]string) string {
		files["app.env"] += k + "=" + v + "\n"
		return ""
	}},
}

// TestNoPasswordReachable checks the password property over every dialect
// and reference shape, in every command and format.
func TestNoPasswordReachable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command on 200 projects")
	}
	masked := 0
	for _, d := range pwDialects {
		for _, s := range pwShapes {
			t.Run(d.name+"/"+s.name, func(t *testing.T) {
				files := map[string]string{}
				env := map[string]string{}
				value := strings.ReplaceAll(d.value, "PW", s.pw())
				written := s.wrap(d.key, value, files, env)
				for _, o := range pwOutputs(t, d.key, written, files, env) {
					if strings.Contains(o.text, "****") {
						masked++
					}
					for _, f := range pwFragments {
						if strings.Contains(o.text, f) {
							t.Errorf("uds-migrate %s shows %q of the password:\n%s", o.args, f, trim(o.text))
							break
						}
					}
				}
			})
		}
	}
	// Outputs that quote a value with its password masked: without them
	// the property holds only because nothing quotes a value.
	if masked < 150 {
		t.Errorf("only %d outputs quote a masked value: do the cases still reach findings?", masked)
	}
}

// pwOutputs writes a project whose service app has key=written (or, with
// written empty, reads it from app.env) beside a postgres service db and
// a pgbouncer, and returns what each command prints that must not hold a
// password: every command in every format, stderr always, stdout where it
// is a report (migrate's and revert's stdout, and -d's, are the compose
// file itself). A URI's reader is named (--consumer KEY=empty, issue #20)
// so that the value is migrated and quoted in the changes; --check and
// plan run without it too, where UDS154 quotes the value left on TCP. -w
// then migrates the project's own files, and revert runs on the result.
func pwOutputs(t *testing.T, key, written string, files, env map[string]string) []secretOutput {
	dir := t.TempDir()
	t.Chdir(dir)
	for k, v := range env {
		t.Setenv(k, v)
	}
	var doc strings.Builder
	doc.WriteString("services:\n  db:\n    image: postgres:16\n  pgbouncer:\n    image: bitnami/pgbouncer:1\n  app:\n    image: x/app:1\n")
	if written == "" {
		doc.WriteString("    env_file: app.env\n")
	} else {
		doc.WriteString("    environment:\n      " + key + ": '" + strings.ReplaceAll(written, "'", "''") + "'\n")
		if key == "PGPASSWORD" || key == "DB_PASSWORD" {
			doc.WriteString("      PGHOST: db\n      DB_HOST: db\n")
		}
	}
	files["compose.yml"] = doc.String()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var reader []string
	if key == "DATABASE_URL" || key == "SQLALCHEMY_DATABASE_URI" || key == "CELERY_RESULT_BACKEND" || key == "GEO_URL" {
		reader = []string{"--consumer", key + "=empty"}
	}
	type cmd struct {
		args []string
		// report: stdout is a report, not the compose file.
		report, noReader bool
	}
	cmds := []cmd{
		{[]string{"compose.yml"}, false, false},
		{[]string{"--check", "compose.yml"}, true, false},
		{[]string{"--check", "--format", "json", "compose.yml"}, true, false},
		{[]string{"--check", "--format", "sarif", "compose.yml"}, true, false},
		{[]string{"--check", "--format", "gcc", "compose.yml"}, true, false},
		{[]string{"-d", "compose.yml"}, false, false},
		{[]string{"plan", "compose.yml"}, true, false},
		{[]string{"plan", "--format", "json", "compose.yml"}, true, false},
		{[]string{"plan", "--format", "sarif", "compose.yml"}, true, false},
		{[]string{"plan", "--format", "gcc", "compose.yml"}, true, false},
		{[]string{"validate", "compose.yml"}, true, false},
		{[]string{"validate", "--format", "json", "compose.yml"}, true, false},
	}
	if reader != nil {
		cmds = append(cmds,
			cmd{[]string{"--check", "compose.yml"}, true, true},
			cmd{[]string{"plan", "--format", "sarif", "compose.yml"}, true, true})
	}
	// -w migrates the project's files; revert then has values to quote.
	cmds = append(cmds, cmd{[]string{"-w", "compose.yml"}, true, false},
		cmd{[]string{"revert", "compose.yml"}, false, false},
		cmd{[]string{"revert", "--check", "--format", "json", "compose.yml"}, true, false},
		cmd{[]string{"revert", "-d", "--format", "sarif", "compose.yml"}, false, false})
	var outs []secretOutput
	for _, c := range cmds {
		args := c.args
		switch {
		case c.noReader, args[0] == "validate", args[0] == "revert":
		case args[0] == "plan":
			args = append(append([]string{"plan"}, reader...), args[1:]...)
		default:
			args = append(slices.Clone(reader), args...)
		}
		// Each command's text report runs piped and as on a terminal,
		// where each finding is followed by its source line.
		modes := []bool{false}
		if len(c.args) == 1 || len(c.args) == 2 && c.args[0] != "-w" && c.args[0] != "-d" && c.args[0] != "--check" {
			modes = append(modes, true)
		}
		for _, terminal := range modes {
			var out, errb bytes.Buffer
			runStyled(t, terminal, append([]string{"uds-migrate"}, args...), &out, &errb)
			text := errb.String()
			if c.report {
				text += out.String()
			}
			outs = append(outs, secretOutput{styledArgs(terminal, args), text})
		}
	}
	return outs
}
