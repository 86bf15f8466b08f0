package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestExitCodes pins the exit status contract: 0 done or nothing to do, 1
// changes pending under --check/--diff, 2 error.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	pending := filepath.Join(dir, "pending.yml")
	clean := filepath.Join(dir, "clean.yml")
	bad := filepath.Join(dir, "bad.yml")
	os.WriteFile(pending, []byte("services:\n  app:\n    image: a\n    environment:\n      U: postgres://u@db/x\n  db:\n    image: postgres\n"), 0o644)
	os.WriteFile(clean, []byte("services:\n  app:\n    image: a\n"), 0o644)
	os.WriteFile(bad, []byte("services: [\n"), 0o644)
	cases := []struct {
		args []string
		want int
	}{
		{[]string{pending}, 0},
		// No code or catalogue shows who reads U: nothing is pending until
		// the user names the reader (issue #20).
		{[]string{"--check", pending}, 0},
		{[]string{"--check", "--consumer", "app/U=empty", pending}, 1},
		{[]string{"-d", "--consumer", "app/U=psycopg", pending}, 1},
		{[]string{"--check", "--consumer", "U=localhost", pending}, 1},
		{[]string{"--consumer", "app/U=nosuch", pending}, 2},
		{[]string{"--consumer", "app/U=encoded", pending}, 2},
		{[]string{"--consumer", "nobody/U=empty", pending}, 2},
		{[]string{"--consumer", "app/NOPE=empty", pending}, 2},
		{[]string{"--consumer", "NOPE=empty", pending}, 2},
		{[]string{"--consumer", "app/U", pending}, 2},
		{[]string{"--check", clean}, 0},
		{[]string{"-d", clean}, 0},
		{[]string{clean}, 0},
		{[]string{bad}, 2},
		{[]string{"--check", bad}, 2},
		{[]string{filepath.Join(dir, "missing.yml")}, 2},
		{[]string{"--host-var", "app/U", pending}, 0},
		{[]string{"--host-var", "app/NOPE", pending}, 2},
		{[]string{"--host-var", "nobody/U", pending}, 2},
		{[]string{"--host-var", "U", pending}, 2},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if got := run(append([]string{"uds-migrate"}, c.args...), &out, &errb); got != c.want {
			t.Errorf("uds-migrate %v: exit %d, want %d (stderr %q)", c.args, got, c.want, errb.String())
		}
		if c.want == 2 && out.Len() > 0 {
			t.Errorf("uds-migrate %v: error exit but stdout %q", c.args, out.String())
		}
	}
}
