package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/schematest"
	"github.com/uds-migrate/uds-migrate/libpq"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// goldenResults migrates the compose.yml of every golden case that has one
// (the inputs of testdata/script) and returns the results by case name, plus
// each case's passwords written in its connection URIs (per case: one
// case's password may be another's host name).
func goldenResults(t *testing.T) (map[string]Input, map[string][]string) {
	t.Helper()
	files, _ := filepath.Glob("../testdata/script/*/*.txtar")
	out := map[string]Input{}
	secrets := map[string][]string{}
	count := 0
	for _, f := range files {
		name := filepath.Base(f)
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
							secrets[name] = append(secrets[name], pw)
							count++
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
		out[name] = inputOf(res)
	}
	if len(out) < 8 || count < 3 {
		t.Fatalf("found %d golden results and %d passwords; the golden cases moved?", len(out), count)
	}
	return out, secrets
}

// inputOf is what the command hands report of a result (as
// cmd/uds-migrate's reportInput does).
func inputOf(res *rewrite.Result) Input {
	in := Input{Changes: res.Changes, Findings: res.Findings, NothingReason: res.NothingReason}
	for _, f := range res.Files {
		in.Files = append(in.Files, File{Path: f.Path, Changed: f.Changed})
	}
	for _, d := range res.DBs {
		in.DBs = append(in.DBs, Database{Service: d.Service, Family: d.Family, SocketDir: d.SocketDir, Port: d.Port, Volume: d.Volume, Names: d.Names})
	}
	return in
}

func changed(in Input) bool {
	for _, f := range in.Files {
		if f.Changed {
			return true
		}
	}
	return false
}

// TestFormatsValidateAndHideSecrets renders every golden result as JSON
// (against docs/plan.schema.json), SARIF (against the SARIF 2.1.0 subset
// schema) and text, and checks that no password from the inputs appears.
func TestFormatsValidateAndHideSecrets(t *testing.T) {
	results, secrets := goldenResults(t)
	planSchema := schematest.Compile(t, "../docs/plan.schema.json")
	sarifSchema := schematest.Compile(t, "testdata/sarif-2.1.0-subset.schema.json")
	for name, res := range results {
		var js, sa, tx bytes.Buffer
		p := FromResult("plan", res)
		if err := JSON(&js, p); err != nil {
			t.Fatal(err)
		}
		if err := SARIF(&sa, p, Tool{Version: "test"}); err != nil {
			t.Fatal(err)
		}
		if err := Text(&tx, p); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			what   string
			schema *jsonschema.Schema
			buf    *bytes.Buffer
		}{{"json", planSchema, &js}, {"sarif", sarifSchema, &sa}} {
			if err := schematest.Validate(c.schema, c.buf.Bytes()); err != nil {
				t.Errorf("%s: %s output does not validate: %v", name, c.what, err)
			}
		}
		for _, out := range []string{js.String(), sa.String(), tx.String()} {
			for _, s := range secrets[name] {
				// In userinfo (":pw@") or a user-less "pw@"; what follows
				// "@" is a host and may equal a password by chance.
				if strings.Contains(out, ":"+s+"@") || strings.Contains(out, "/"+s+"@") {
					t.Errorf("%s: password %q appears in a report", name, s)
				}
			}
		}
		if changed(res) && !strings.Contains(tx.String(), "changes:") {
			t.Errorf("%s: text plan lists no changes for a changed file", name)
		}
	}
}

// TestSchemaRejectsBadPlan proves the schema check can fail.
func TestSchemaRejectsBadPlan(t *testing.T) {
	s := schematest.Compile(t, "../docs/plan.schema.json")
	if schematest.Validate(s, []byte(`{"schema":"uds-migrate.plan/v2","files":[],"databases":[],"changes":[],"findings":[],"manualSteps":[]}`)) == nil {
		t.Fatal("a plan with the wrong schema version validated")
	}
}

// TestEveryCommandShape validates the documents of validate (findings
// only) and of an input error against both schemas, and checks that an
// error is a SARIF result of level error at its position, so an upload of
// a broken input is never empty.
func TestEveryCommandShape(t *testing.T) {
	planSchema := schematest.Compile(t, "../docs/plan.schema.json")
	sarifSchema := schematest.Compile(t, "testdata/sarif-2.1.0-subset.schema.json")
	docs := map[string]Plan{
		"validate": FromFindings("validate", []finding.Finding{{Pos: finding.Pos{File: "c.yml", Line: 7, Col: 17}, Severity: finding.SevError, Code: "UDS201", Service: "app", Key: "JDBC_URL", Message: "single $"}}),
		"poserror": FromError("plan", &finding.PosError{Pos: finding.Pos{File: "c.yml", Line: 3, Col: 5}, Msg: "invalid YAML: mapping values are not allowed in this context"}),
		"error":    FromError("validate", errors.New("no compose file given")),
	}
	for name, p := range docs {
		var js, sa bytes.Buffer
		if err := JSON(&js, p); err != nil {
			t.Fatal(err)
		}
		if err := SARIF(&sa, p, Tool{Version: "test"}); err != nil {
			t.Fatal(err)
		}
		for what, c := range map[string]struct {
			s *jsonschema.Schema
			b *bytes.Buffer
		}{"json": {planSchema, &js}, "sarif": {sarifSchema, &sa}} {
			if err := schematest.Validate(c.s, c.b.Bytes()); err != nil {
				t.Errorf("%s %s does not validate: %v\n%s", name, what, err, c.b)
			}
		}
		if !strings.Contains(sa.String(), `"level": "error"`) {
			t.Errorf("%s: no SARIF result of level error:\n%s", name, sa.String())
		}
	}
	var sa bytes.Buffer
	SARIF(&sa, docs["poserror"], Tool{Version: "test"})
	if !strings.Contains(sa.String(), `"startLine": 3`) || !strings.Contains(sa.String(), `"ruleId": "UDS001"`) {
		t.Errorf("input error lost its position or code:\n%s", sa.String())
	}
}

// TestGCC pins the line shape problem matchers read.
func TestGCC(t *testing.T) {
	var b bytes.Buffer
	GCC(&b, FromFindings("validate", []finding.Finding{
		{Pos: finding.Pos{File: "c.yml", Line: 7, Col: 17}, Severity: finding.SevWarning, Code: "UDS120", Message: "m1"},
		{Pos: finding.Pos{File: "c.yml"}, Severity: finding.SevError, Code: "UDS205", Message: "m2"},
		{Pos: finding.Pos{File: "c.yml", Line: 2, Col: 1}, Severity: finding.SevInfo, Code: "UDS109", Message: "m3"},
	}))
	want := "c.yml:7:17: warning: m1 [UDS120]\nc.yml: error: m2 [UDS205]\nc.yml:2:1: note: m3 [UDS109]\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestOneLinePerFinding: a message or file name holding line breaks (a
// block scalar's value quoted in a finding) is one line in gcc and in the
// text findings, its breaks written \n and \r (trial 5 D9).
func TestOneLinePerFinding(t *testing.T) {
	fs := []finding.Finding{
		{Pos: finding.Pos{File: "c.yml", Line: 5, Col: 14}, Severity: finding.SevWarning, Code: "UDS154", Message: "write postgres://web:****@/web\n?host=/x or\r\nthat\r"},
		{Pos: finding.Pos{File: "odd\nname.yml", Line: 1, Col: 1}, Severity: finding.SevInfo, Code: "UDS109", Message: "m"},
	}
	var gcc, text, wrapped bytes.Buffer
	GCC(&gcc, FromFindings("migrate", fs))
	Lines(&text, FromFindings("migrate", fs))
	StyledLines(&wrapped, FromFindings("migrate", fs), Style{Width: 40})
	for name, out := range map[string]string{"gcc": gcc.String(), "text": text.String()} {
		if n := strings.Count(out, "\n"); n != len(fs) {
			t.Errorf("%s: %d lines for %d findings:\n%s", name, n, len(fs), out)
		}
		if !strings.Contains(out, `@/web\n?host=/x or\r\nthat\r`) || !strings.Contains(out, `odd\nname.yml:1:1`) {
			t.Errorf("%s: line breaks not escaped:\n%s", name, out)
		}
	}
	if want := "c.yml:5:14: warning: write postgres://web:****@/web\\n?host=/x or\\r\\nthat\\r [UDS154]\n"; !strings.HasPrefix(gcc.String(), want) {
		t.Errorf("gcc:\n%s\nwant the first line\n%s", gcc.String(), want)
	}
	if strings.Contains(wrapped.String(), "\r") {
		t.Errorf("wrapped text keeps a carriage return:\n%q", wrapped.String())
	}
}

// TestSARIFRulesDocumented: every rule carries the docs section and a link
// to it.
func TestSARIFRulesDocumented(t *testing.T) {
	var b bytes.Buffer
	SARIF(&b, FromFindings("validate", []finding.Finding{{Pos: finding.Pos{File: "c.yml", Line: 1, Col: 1}, Severity: finding.SevWarning, Code: "UDS120", Message: "m"}}), Tool{Version: "test"})
	for _, want := range []string{`"fullDescription"`, `"helpUri": "https://github.com/uds-migrate/uds-migrate/blob/main/docs/findings.md#uds120"`, `Cause: `} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("SARIF rule lacks %s:\n%s", want, b.String())
		}
	}
}

// TestProblemMatcher: docs/problem-matcher.json (GitHub Actions, README's CI
// example) reads every gcc line (issue #23 point 8): file:line:col
// findings, file-level ones (no line), findings of the run itself
// ("uds-migrate: error: ..."), and notes (severity notice, the matcher's
// own: GitHub captures only error and warning). Each line is matched by
// exactly one matcher, with its file, line, column, severity, message and
// code. The regexps are plain enough for both JavaScript and RE2.
func TestProblemMatcher(t *testing.T) {
	data, err := os.ReadFile("../docs/problem-matcher.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ProblemMatcher []struct {
			Owner    string
			Severity string
			Pattern  []struct {
				Regexp                                      string
				File, Line, Column, Severity, Message, Code int
			}
		}
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	GCC(&b, FromFindings("validate", []finding.Finding{
		{Pos: finding.Pos{File: "dir/compose.yml", Line: 7, Col: 17}, Severity: finding.SevError, Code: "UDS201", Message: "$FactoryArg is written with one $: write $$FactoryArg [sic]"},
		{Pos: finding.Pos{File: "dir/compose.yml"}, Severity: finding.SevError, Code: "UDS205", Message: "no volume: holds it"},
		{Pos: finding.Pos{File: "compose.yml", Line: 3, Col: 5}, Severity: finding.SevWarning, Code: "UDS120", Message: "a: b"},
		{Pos: finding.Pos{File: ".env"}, Severity: finding.SevWarning, Code: "UDS160", Message: "shared"},
		{Pos: finding.Pos{File: "c.yml", Line: 2, Col: 1}, Severity: finding.SevInfo, Code: "UDS109", Message: "bitnami"},
		{Pos: finding.Pos{File: "c.yml"}, Severity: finding.SevInfo, Code: "UDS109", Message: "bitnami, no line"},
		{Severity: finding.SevError, Code: "UDS002", Message: "flag provided but not defined: -x"},
	}))
	want := []string{
		"dir/compose.yml|7|17|error|$FactoryArg is written with one $: write $$FactoryArg [sic]|UDS201",
		"dir/compose.yml|||error|no volume: holds it|UDS205",
		"compose.yml|3|5|warning|a: b|UDS120",
		".env|||warning|shared|UDS160",
		"c.yml|2|1|notice|bitnami|UDS109",
		"c.yml|||notice|bitnami, no line|UDS109",
		"|||error|flag provided but not defined: -x|UDS002",
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d gcc lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	group := func(g []string, i int) string {
		if i == 0 {
			return ""
		}
		return g[i]
	}
	for k, line := range lines {
		var got []string
		for _, pm := range m.ProblemMatcher {
			p := pm.Pattern[0]
			g := regexp.MustCompile(p.Regexp).FindStringSubmatch(line)
			if g == nil {
				continue
			}
			sev := group(g, p.Severity)
			if sev == "" {
				sev = pm.Severity
			}
			got = append(got, strings.Join([]string{group(g, p.File), group(g, p.Line), group(g, p.Column), sev, group(g, p.Message), group(g, p.Code)}, "|"))
		}
		if len(got) != 1 || got[0] != want[k] {
			t.Errorf("%q: matched %q, want exactly %q", line, got, want[k])
		}
	}
}
