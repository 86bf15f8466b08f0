package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/uds-migrate/uds-migrate/libpq"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// goldenResults migrates the compose.yml of every golden case that has one
// (the inputs of testdata/script) and returns the results by case name, plus
// the passwords written in their connection URIs.
func goldenResults(t *testing.T) (map[string]*rewrite.Result, []string) {
	t.Helper()
	files, _ := filepath.Glob("../testdata/script/*.txtar")
	out := map[string]*rewrite.Result{}
	var secrets []string
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var hasCompose bool
		for _, af := range ar.Files {
			if strings.HasPrefix(af.Name, "want/") {
				continue
			}
			p := filepath.Join(dir, af.Name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, af.Data, 0o644)
			hasCompose = hasCompose || af.Name == "compose.yml"
			for _, line := range strings.Split(string(af.Data), "\n") {
				for _, w := range strings.Fields(strings.NewReplacer("=", " ", ": ", " ").Replace(line)) {
					if u, err := libpq.ParseURI(w); err == nil {
						if _, pw, ok := u.User(); ok && len(pw) > 1 {
							secrets = append(secrets, pw)
						}
					}
				}
			}
		}
		if !hasCompose {
			continue
		}
		p := filepath.Join(dir, "compose.yml")
		data, _ := os.ReadFile(p)
		res, err := rewrite.Migrate(context.Background(), []rewrite.Input{{Path: p, Data: data}}, rewrite.DefaultOptions())
		if err != nil {
			continue // error cases are covered by the CLI goldens
		}
		out[filepath.Base(f)] = res
	}
	if len(out) < 8 || len(secrets) < 3 {
		t.Fatalf("found %d golden results and %d passwords; the golden cases moved?", len(out), len(secrets))
	}
	return out, secrets
}

func compile(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(path, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFormatsValidateAndHideSecrets renders every golden result as JSON
// (against docs/plan.schema.json), SARIF (against the SARIF 2.1.0 subset
// schema) and text, and checks that no password from the inputs appears.
func TestFormatsValidateAndHideSecrets(t *testing.T) {
	results, secrets := goldenResults(t)
	planSchema := compile(t, "../docs/plan.schema.json")
	sarifSchema := compile(t, "testdata/sarif-2.1.0-subset.schema.json")
	for name, res := range results {
		var js, sa, tx bytes.Buffer
		if err := JSON(&js, res); err != nil {
			t.Fatal(err)
		}
		if err := SARIF(&sa, res, "test"); err != nil {
			t.Fatal(err)
		}
		if err := Text(&tx, res); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			what   string
			schema *jsonschema.Schema
			buf    *bytes.Buffer
		}{{"json", planSchema, &js}, {"sarif", sarifSchema, &sa}} {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.buf.Bytes()))
			if err != nil {
				t.Fatalf("%s %s: %v", name, c.what, err)
			}
			if err := c.schema.Validate(doc); err != nil {
				t.Errorf("%s: %s output does not validate: %v", name, c.what, err)
			}
		}
		for _, out := range []string{js.String(), sa.String(), tx.String()} {
			for _, s := range secrets {
				if strings.Contains(out, "@"+s) || strings.Contains(out, ":"+s+"@") {
					t.Errorf("%s: password %q appears in a report", name, s)
				}
			}
		}
		if res.Changed() && !strings.Contains(tx.String(), "changes:") {
			t.Errorf("%s: text plan lists no changes for a changed file", name)
		}
	}
}

// TestSchemaRejectsBadPlan proves the schema check can fail.
func TestSchemaRejectsBadPlan(t *testing.T) {
	s := compile(t, "../docs/plan.schema.json")
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"schema":"uds-migrate.plan/v2","files":[],"databases":[],"changes":[],"findings":[],"manualSteps":[]}`))
	if s.Validate(doc) == nil {
		t.Fatal("a plan with the wrong schema version validated")
	}
}
