package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/rewrite"
)

var (
	// A password after a key that names one: POSTGRES_PASSWORD: x,
	// password=x (JDBC, DSN), Password=x; (Npgsql), DB_PASSWORD=x (.env).
	passwordKeyRE = regexp.MustCompile(`(?i)(?:password|passwd|pwd)["']?[ \t]*[=:][ \t]*["']?([^\s"';&,}\]]+)`)
	// The password of a URL's userinfo, any scheme: postgres, r2dbc, ...
	userinfoRE = regexp.MustCompile(`[a-z0-9+.-]+://[^\s:/@"'\[\]]+:([^\s/@"']+)@`)
)

// toolWords are passwords of the goldens that the tool's own messages
// contain as words ("... without a password").
var toolWords = map[string]bool{"password": true, "postgres": true}

// passwords lists the passwords written in data, also those that are the
// user's or the database's name too (postgres://kitsune:kitsune@db/kitsune,
// trial 10 W3): the output must not show that text anywhere. Left out are
// words the tool's messages contain and short ones (masked only as whole
// words, which strings.Contains cannot check); the caller leaves out
// service names (servicesOf).
func passwords(data []byte) []string {
	seen := map[string]bool{}
	for _, re := range []*regexp.Regexp{passwordKeyRE, userinfoRE} {
		for _, m := range re.FindAllSubmatch(data, -1) {
			seen[string(m[1])] = true
		}
	}
	var out []string
	for pw := range seen {
		if len(pw) < 4 || strings.ContainsAny(pw, "$*") || toolWords[strings.ToLower(pw)] {
			continue
		}
		out = append(out, pw)
	}
	sort.Strings(out)
	return out
}

// servicesOf returns the service names of a compose file: a password equal
// to one or part of one is not masked by text (findings and plans name
// their service in a field of its own), so the property does not ask for
// it.
func servicesOf(data []byte) map[string]bool {
	var doc struct {
		Services map[string]any `yaml:"services"`
	}
	out := map[string]bool{}
	if yaml.Unmarshal(data, &doc) == nil {
		for name := range doc.Services {
			out[name] = true
		}
	}
	return out
}

// golden is one materialized golden case: its directory, compose inputs
// and the passwords in all its files.
type golden struct {
	name      string
	dir       string
	inputs    []string
	passwords []string
	services  map[string]bool // the compose files' service names
}

// maskable reports whether the output must not show pw: it is no service
// name and no part of one.
func (g golden) maskable(pw string) bool {
	for s := range g.services {
		if strings.Contains(s, pw) {
			return false
		}
	}
	return true
}

func goldens(t *testing.T) []golden {
	t.Helper()
	archives, _ := filepath.Glob("../../testdata/script/*/*.txtar")
	var out []golden
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			t.Fatal(err)
		}
		g := golden{name: filepath.Base(a), dir: t.TempDir(), services: map[string]bool{}}
		for _, f := range ar.Files {
			if ext := filepath.Ext(f.Name); !strings.HasPrefix(f.Name, "want/") && (ext == ".yml" || ext == ".yaml") {
				maps.Copy(g.services, servicesOf(f.Data))
			}
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "want/") {
				continue
			}
			p := filepath.Join(g.dir, f.Name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			if ext := filepath.Ext(f.Name); ext == ".yml" || ext == ".yaml" {
				g.inputs = append(g.inputs, f.Name)
			}
			for _, pw := range passwords(f.Data) {
				if g.maskable(pw) && !slices.Contains(g.passwords, pw) {
					g.passwords = append(g.passwords, pw)
				}
			}
		}
		out = append(out, g)
	}
	return out
}

// leaks reports the passwords found in out.
func leaks(out string, pws []string) []string {
	out = withoutCodeDocs(out)
	var hit []string
	for _, pw := range pws {
		if strings.Contains(out, pw) {
			hit = append(hit, pw)
		}
	}
	return hit
}

// withoutCodeDocs drops the finding codes' own text (title, cause and
// fix from docs/findings.md) that SARIF rules carry: it is the tool's, not
// the input's, and a password such as "example" (the official image's
// documentation uses it) is also an English word there.
func withoutCodeDocs(out string) string {
	for _, c := range rewrite.Codes() {
		for _, text := range []string{c.Doc, c.Title} {
			if text == "" {
				continue
			}
			if q, err := json.Marshal(text); err == nil {
				out = strings.ReplaceAll(out, string(q), `""`)
			}
		}
	}
	return out
}

// TestNoPasswordInOutput runs every golden input through the commands that
// read a project, and checks that no password of the case appears on
// stderr (findings, notes, errors) or in the reports plan and validate
// print, piped or on a terminal (each finding with its source line). Migrate's and revert's stdout is the compose file itself, passwords
// and all, and is not checked.
func TestNoPasswordInOutput(t *testing.T) {
	total := 0
	for _, g := range goldens(t) {
		if len(g.passwords) == 0 {
			continue
		}
		total += len(g.passwords)
		t.Chdir(g.dir)
		for _, in := range g.inputs {
			for _, c := range []struct {
				args       []string
				scanStdout bool
			}{
				{[]string{in}, false},
				{[]string{"-d", in}, false}, // the diff is the files' own text; its findings are not
				{[]string{"--check", in}, true},
				{[]string{"plan", in}, true},
				{[]string{"plan", "--format", "json", in}, true},
				{[]string{"plan", "--format", "sarif", in}, true},
				{[]string{"plan", "--format", "gcc", in}, true},
				{[]string{"--format", "json", in}, false},
				{[]string{"validate", in}, true},
				{[]string{"validate", "--format", "json", in}, true},
				{[]string{"validate", "--format", "sarif", in}, true},
				{[]string{"validate", "--format", "gcc", in}, true},
				{[]string{"revert", in}, false},
			} {
				// Text runs piped and as on a terminal, where each finding
				// quotes its source line.
				for _, terminal := range []bool{false, true} {
					if terminal && slices.Contains(c.args, "--format") {
						continue
					}
					var out, errb bytes.Buffer
					runStyled(t, terminal, append([]string{"uds-migrate"}, c.args...), &out, &errb)
					text := errb.String()
					if c.scanStdout {
						text += out.String()
					}
					if hit := leaks(text, g.passwords); len(hit) > 0 {
						t.Errorf("%s: uds-migrate %s shows %q:\n%s", g.name, styledArgs(terminal, c.args), hit, trim(text))
					}
				}
			}
		}
	}
	if total < 10 {
		t.Fatalf("only %d passwords found in the goldens: did they move?", total)
	}
}

// breakages turn a file holding password pw into one the tool refuses, in
// the ways whose messages could quote the text around the password.
var breakages = []struct {
	name string
	do   func(data, pw string) string
}{
	{"bad %-escape in the password", func(d, pw string) string { return strings.Replace(d, pw, pw+"%zz", 1) }},
	{"unterminated ${ after it", func(d, pw string) string { return strings.Replace(d, pw, pw+"${X", 1) }},
	{"unterminated quote before it", func(d, pw string) string { return strings.Replace(d, pw, "\""+pw, 1) }},
	{"a tag that does not fit", func(d, pw string) string { return strings.Replace(d, pw, pw+" !!int", 1) }},
	{"a NUL byte in it", func(d, pw string) string { return strings.Replace(d, pw, pw+"\x00", 1) }},
	{"invalid UTF-8 in it", func(d, pw string) string { return strings.Replace(d, pw, pw+"\xff", 1) }},
	{"a tab before its line", func(d, pw string) string {
		i := strings.Index(d, pw)
		ls := strings.LastIndexByte(d[:i], '\n') + 1
		return d[:ls] + "\t" + d[ls:]
	}},
}

// TestNoPasswordInErrors breaks every golden file that holds a password
// (compose files, env files) next to that password, runs the migration and
// checks that the error (or whatever else it prints) does not show it.
func TestNoPasswordInErrors(t *testing.T) {
	refusals := 0
	for _, g := range goldens(t) {
		t.Chdir(g.dir)
		var files []string
		filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
		for _, f := range files {
			orig, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, pw := range passwords(orig) {
				if !g.maskable(pw) {
					continue
				}
				for _, b := range breakages {
					broken := b.do(string(orig), pw)
					os.WriteFile(f, []byte(broken), 0o644)
					for _, in := range g.inputs {
						var out, errb bytes.Buffer
						if run([]string{"uds-migrate", "--check", in}, &out, &errb) == exitError {
							refusals++
						}
						if hit := leaks(errb.String()+out.String(), []string{pw}); len(hit) > 0 {
							t.Errorf("%s: %s with %s: uds-migrate --check %s shows the password:\n%s", g.name, f, b.name, in, trim(errb.String()))
						}
						// The same error as a SARIF result (UDS001) on stdout.
						out.Reset()
						errb.Reset()
						run([]string{"uds-migrate", "plan", "--format", "sarif", in}, &out, &errb)
						if hit := leaks(errb.String()+out.String(), []string{pw}); len(hit) > 0 {
							t.Errorf("%s: %s with %s: uds-migrate plan --format sarif %s shows the password:\n%s", g.name, f, b.name, in, trim(out.String()))
						}
					}
				}
				os.WriteFile(f, orig, 0o644)
			}
		}
	}
	if refusals < 50 {
		t.Fatalf("only %d broken inputs were refused: the breakages no longer break anything?", refusals)
	}
}
