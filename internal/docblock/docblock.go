// Package docblock keeps a generated block of a documentation file (a table
// of README.md made from the code's registries) in step with its source.
package docblock

import (
	"os"
	"strings"
	"testing"
)

// Check fails t when the text between the lines start and end of file is
// not body; with update it writes body there instead. start and end are
// whole marker lines (an HTML comment naming the command that updates the
// block); body ends with a newline.
func Check(t testing.TB, file, start, end, body string, update bool) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(data), start+"\n")
	got, after, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the markers %q and %q", file, start, end)
	}
	if got == body {
		return
	}
	if update {
		if err := os.WriteFile(file, []byte(before+start+"\n"+body+end+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the block after %q is out of date: run the command it names", file, start)
}
