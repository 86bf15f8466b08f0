package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// composeNameRE matches the compose files a golden's archive holds at its
// root, which a default run reads.
var composeNameRE = regexp.MustCompile(`^(docker-)?compose[^/]*\.ya?ml$`)

// dbDialects are the connection-value dialects: a value of one of them is
// edited only on a recorded basis (issue #20). The proxy migration's
// values (nginx, app servers) are read by the program the directive
// belongs to.
var dbDialects = []string{"celery-db", "jdbc", "libpq-uri", "r2dbc", "libpq-dsn", "pdo-pgsql", "npgsql", "pghost", "host-dir", "host-dir-port"}

// basisKinds are the sources a plan may name beside evidence: the user's
// flag, a catalogue entry, the one reader of the value's grammar.
var basisKinds = []string{"user", "catalogue", "reader"}

// TestEveryEditHasBasis is the property of issue #20 over the goldens:
// every connection value that plan --format json edits, for every compose
// file at the root of every golden archive, names what the form written
// rests on: evidence (file:line), the catalogue, the user's flag, or the
// one reader its grammar has.
func TestEveryEditHasBasis(t *testing.T) {
	archives, err := filepath.Glob("../../testdata/script/*/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	edits := 0
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var composes []string
		for _, f := range ar.Files {
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			if composeNameRE.MatchString(f.Name) {
				composes = append(composes, p)
			}
		}
		for _, c := range composes {
			var out, errb bytes.Buffer
			if code := run([]string{"uds-migrate", "plan", "--format", "json", c}, &out, &errb); code == 2 {
				continue // input the tool refuses: no edit to judge
			}
			var plan struct {
				Changes []struct {
					Kind, Service, Key, Dialect string
					Source                      *struct{ Kind, Name string }
					Evidence                    *struct {
						File string
						Line int
					}
				}
			}
			if err := json.Unmarshal(out.Bytes(), &plan); err != nil {
				t.Errorf("%s %s: plan output does not parse: %v", filepath.Base(a), filepath.Base(c), err)
				continue
			}
			for _, ch := range plan.Changes {
				if ch.Kind != "value" || !slices.Contains(dbDialects, ch.Dialect) {
					continue
				}
				edits++
				who := filepath.Base(a) + " " + filepath.Base(c) + ": " + ch.Service + "/" + ch.Key + " (" + ch.Dialect + ")"
				switch {
				case ch.Source == nil && ch.Evidence == nil:
					t.Errorf("%s is edited with no recorded basis", who)
				case ch.Evidence != nil:
					// file:line of a file the project holds: project-relative
					// (code), or as the run names it (the compose file, Rails'
					// database.yml: absolute here, as the compose path is).
					f := filepath.FromSlash(ch.Evidence.File)
					if !filepath.IsAbs(f) {
						f = filepath.Join(filepath.Dir(c), f)
					}
					if _, err := os.Stat(f); err != nil || ch.Evidence.Line < 1 {
						t.Errorf("%s rests on evidence %s:%d, which is no line of the project (%v)", who, ch.Evidence.File, ch.Evidence.Line, err)
					}
				case !slices.Contains(basisKinds, ch.Source.Kind) || ch.Source.Name == "":
					t.Errorf("%s rests on source %+v: want a kind of %v and a name (the catalogue entry, the flag, the reader)", who, *ch.Source, basisKinds)
				}
			}
		}
	}
	if edits < 50 {
		t.Errorf("only %d edited values over the goldens: the property checks too little", edits)
	}
}
