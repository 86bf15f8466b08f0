package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
// produced by no golden in testdata/script, or a golden shows a code with a
// severity other than the one the registry gives it.
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
		if why, ok := unproducible[c.ID]; ok {
			if len(produced[c.ID]) > 0 {
				t.Errorf("%s is listed as unproducible (%s), but %v produce it: drop it from the list", c.ID, why, produced[c.ID])
			}
			continue
		}
		if len(produced[c.ID]) == 0 {
			t.Errorf("%s (%s): no golden in testdata/script produces it; add one", c.ID, c.Title)
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
