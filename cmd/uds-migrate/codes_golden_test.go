package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/docs"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// producedRE matches a finding in a golden's expected output or in a
// script line that asserts one: text and gcc formats (SEVERITY CODE:), the
// JSON plan ("severity": ..., "code": ...) and the SARIF log ("ruleId").
var producedRE = regexp.MustCompile(`\b(ERROR|WARNING|INFO) (UDS\d{3})\b|"severity": "(ERROR|WARNING|INFO)",\s*"code": "(UDS\d{3})"|"ruleId": "(UDS\d{3})"`)

// unproducible are codes no golden can show yet, each with the reason; the
// test fails when one is produced after all, so the list cannot go stale.
var unproducible = map[string]string{
	"UDS213": "retired: SQLAlchemy's asyncpg dialect takes ?host= over the URL's host (create_connect_args), so the URL it flagged connects",
}

// TestEveryCodeHasGolden fails when a finding code of the registry is
// produced by no golden in testdata/script, when a golden shows a code with
// a severity other than the one the registry gives it, or when the code's
// section in docs/findings.md does not name a golden that produces it.
func TestEveryCodeHasGolden(t *testing.T) {
	files, err := filepath.Glob("../../testdata/script/*/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	produced := map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := dropNegated(string(data))
		for _, m := range producedRE.FindAllStringSubmatch(text, -1) {
			sev, code := m[1]+m[3], m[2]+m[4]+m[5]
			produced[code] = append(produced[code], filepath.Base(f))
			if sev == "" {
				continue
			}
			c, ok := rewrite.LookupCode(code)
			switch {
			case !ok:
				t.Errorf("%s: code %s is not in the registry", filepath.Base(f), code)
			case sev != string(c.Severity) && rewrite.Severity(sev) != c.CarriedAs:
				t.Errorf("%s: %s %s, but the registry gives %s severity %s", filepath.Base(f), sev, code, code, c.Severity)
			}
		}
	}
	for _, c := range rewrite.Codes() {
		ex, hasEx := docs.Example(c.ID)
		if why, ok := unproducible[c.ID]; ok {
			if len(produced[c.ID]) > 0 {
				t.Errorf("%s is listed as unproducible (%s), but %v produce it: drop it from the list", c.ID, why, produced[c.ID])
			}
			if strings.HasSuffix(ex, ".txtar") {
				t.Errorf("%s is unproducible, but docs/findings.md names %s as its example", c.ID, ex)
			}
			continue
		}
		if len(produced[c.ID]) == 0 {
			t.Errorf("%s (%s): no golden in testdata/script produces it; add one", c.ID, c.Title)
		}
		// actionlint's check-checks: the documentation's example is a case
		// this test runs, and it shows the code.
		switch {
		case !hasEx:
			t.Errorf("%s: its section in docs/findings.md names no golden (add \"Example: `testdata/script/FOLDER/NAME.txtar`\"; one of %v)", c.ID, produced[c.ID])
		case !slices.Contains(produced[c.ID], filepath.Base(ex)) || !strings.HasPrefix(ex, "testdata/script/"):
			t.Errorf("%s: docs/findings.md names %s as its example, which does not produce it (these do: %v)", c.ID, ex, produced[c.ID])
		default:
			if _, err := os.Stat(filepath.Join("../..", ex)); err != nil {
				t.Errorf("%s: the example %s named in docs/findings.md: %v", c.ID, ex, err)
			}
		}
	}
}

// dropNegated removes script lines that assert an absence ("! stderr ...")
// and comment lines, which name codes without producing them.
func dropNegated(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "!") || strings.HasPrefix(t, "#") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
