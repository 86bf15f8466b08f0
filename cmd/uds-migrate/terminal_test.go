package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalOutput runs validate on a real terminal (a pseudo-terminal
// from util-linux script(1), which Debian always has): findings come in
// colour with the source line and a caret; NO_COLOR keeps the layout and
// drops the colour (issue #23 point 9). The source line shows no password
// (trial 5, D4). The plain form for pipes is
// pinned by the golden text-output.
func TestTerminalOutput(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) (util-linux) to give the command a terminal")
	}
	dir := t.TempDir()
	compose := "services:\n  app:\n    image: a\n    environment:\n      JDBC_URL: jdbc:postgresql://db:5432/x?password=Tr0ub4dorPw&socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5432\n    volumes:\n      - s:/var/run/postgresql:ro\n  db:\n    image: postgres:16\n    volumes:\n      - s:/var/run/postgresql\nvolumes:\n  s:\n"
	if err := os.WriteFile(filepath.Join(dir, "c.yml"), []byte(compose), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, noColor := range []string{"", "1"} {
		cmd := exec.Command("script", "-qfec", "uds-migrate validate c.yml", "/dev/null")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "NO_COLOR="+noColor, "COLUMNS=100", "CLICOLOR_FORCE=")
		out, _ := cmd.CombinedOutput() // exit 1: the findings
		text := strings.ReplaceAll(string(out), "\r\n", "\n")
		if !strings.Contains(text, "ERROR") {
			t.Fatalf("NO_COLOR=%q: no finding on the terminal:\n%q", noColor, text)
		}
		if colour := strings.Contains(text, "\x1b["); colour != (noColor == "") {
			t.Errorf("NO_COLOR=%q: colour %v on a terminal:\n%q", noColor, colour, text)
		}
		plain := strings.NewReplacer("\x1b[0m", "", "\x1b[1m", "", "\x1b[2m", "", "\x1b[31m", "", "\x1b[32m", "", "\x1b[33m", "", "\x1b[36m", "").Replace(text)
		if strings.Contains(text, "Tr0ub4dorPw") {
			t.Errorf("NO_COLOR=%q: the password shows on the terminal:\n%s", noColor, text)
		}
		if !strings.Contains(plain, "    5 |       JDBC_URL: jdbc:postgresql://db:5432/x?password=****&socketFactory=") || !strings.Contains(plain, "\n      |                 ^\n") {
			t.Errorf("NO_COLOR=%q: no source line and caret under 5:17:\n%s", noColor, plain)
		}
	}
}
