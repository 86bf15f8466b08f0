package rewrite

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/sirupsen/logrus"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/validate"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// goldenInputs returns every compose file the CLI goldens start from
// (testdata/script/*/*.txtar, expected outputs under want/ left out), so the
// fuzz seeds follow the goldens as they grow.
func goldenInputs(tb testing.TB) map[string][]byte {
	tb.Helper()
	archives, err := filepath.Glob("../testdata/script/*/*.txtar")
	if err != nil || len(archives) == 0 {
		tb.Fatalf("no golden archives: %v", err)
	}
	out := map[string][]byte{}
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range ar.Files {
			ext := filepath.Ext(f.Name)
			if (ext != ".yml" && ext != ".yaml") || strings.HasPrefix(f.Name, "want/") {
				continue
			}
			out[filepath.Base(a)+"/"+f.Name] = f.Data
		}
	}
	return out
}

func toCRLF(b []byte) []byte {
	return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
}

// FuzzMigrate migrates arbitrary bytes as a one-file compose project in an
// empty directory, with an empty environment. Properties:
//   - no panic, and an error is a *PosError, a *validate.Error, or names
//     itself an internal error (which fails: valid input must migrate);
//   - a file the migration leaves alone comes out byte-identical;
//   - the output parses again (NewSource) and migrating it changes nothing;
//   - a UTF-8 byte order mark and CRLF line endings are kept;
//   - no password written in the input (URL userinfo, password=, a
//     *PASSWORD variable; see noLeak) appears in a finding, a change or
//     the error.
//
// Seeds: every golden input, as written and with BOM+CRLF, plus
// testdata/fuzz/FuzzMigrate (past findings).
//
//	go test ./rewrite -run '^$' -fuzz FuzzMigrate -fuzztime 10m
func FuzzMigrate(f *testing.F) {
	logrus.SetOutput(io.Discard) // compose-go's warnings about unset variables
	for _, data := range goldenInputs(f) {
		f.Add(data)
		f.Add(append([]byte("\xef\xbb\xbf"), toCRLF(data)...))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "compose.yml")
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		res, err := Migrate(ctx, []Input{{Path: path, Data: data}}, DefaultOptions())
		noLeak(t, data, res, err)
		if err != nil {
			var pe *PosError
			var ve *validate.Error
			if strings.Contains(err.Error(), "internal error") || (!errors.As(err, &pe) && !errors.As(err, &ve)) {
				t.Fatalf("Migrate(%q): %v", data, err)
			}
			return
		}
		if len(res.Files) == 0 {
			t.Fatalf("Migrate(%q): no files in the result", data)
		}
		out := res.Files[0].After
		if !res.Files[0].Changed && !bytes.Equal(out, data) {
			t.Fatalf("Migrate(%q): unchanged, but the output differs:\n%q", data, out)
		}
		if !res.Changed() {
			return
		}
		if _, err := yamledit.NewSource(path, out); err != nil {
			t.Fatalf("Migrate(%q) = %q, which does not parse: %v", data, out, err)
		}
		res2, err := Migrate(ctx, []Input{{Path: path, Data: out}}, DefaultOptions())
		if err != nil {
			t.Fatalf("Migrate(%q) = %q, which does not migrate again: %v", data, out, err)
		}
		if res2.Changed() || !bytes.Equal(res2.Files[0].After, out) {
			t.Fatalf("Migrate(%q) = %q, migrated again: %q", data, out, res2.Files[0].After)
		}
		if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) != bytes.HasPrefix(out, []byte("\xef\xbb\xbf")) {
			t.Fatalf("Migrate(%q) = %q: byte order mark not kept", data, out)
		}
		if crlfOnly(data) && !crlfOnly(out) {
			t.Fatalf("Migrate(%q) = %q: CRLF line endings not kept", data, out)
		}
	})
}

// crlfOnly reports whether b has line endings and all of them are CRLF.
func crlfOnly(b []byte) bool {
	n := bytes.Count(b, []byte("\n"))
	return n > 0 && n == bytes.Count(b, []byte("\r\n"))
}

// fuzzPasswordRE finds passwords in a fuzzed file independently of the
// tool's own extraction: URL userinfo and key=value / key: value pairs
// whose key names a password.
var fuzzPasswordRE = []*regexp.Regexp{
	regexp.MustCompile(`://[^\s:/@"']*:([^\s/@"']+)@`),
	regexp.MustCompile(`(?i)password["']?\s*[=:]\s*["']?([^\s"';&,}\]]+)`),
}

// noLeak fails when a password of data (one that is not also written
// elsewhere in data or a word the tool prints) shows in what Migrate
// reports.
func noLeak(t *testing.T, data []byte, res *Result, err error) {
	var out strings.Builder
	if err != nil {
		out.WriteString(err.Error())
	}
	if res != nil {
		for _, f := range res.Findings {
			out.WriteString(f.Message + "\n")
		}
		for _, c := range res.Changes {
			out.WriteString(c.Before + " " + c.After + " " + c.Reason + "\n")
		}
	}
	for _, re := range fuzzPasswordRE {
		for _, m := range re.FindAllSubmatch(data, -1) {
			pw := string(m[1])
			if len(pw) < compose.MinSecret || compose.ToolWord(pw) || strings.ContainsAny(pw, "*$") || bytes.Count(data, m[1]) > 1 {
				continue
			}
			if strings.Contains(out.String(), pw) {
				t.Fatalf("Migrate(%q) reports the password %q:\n%s", data, pw, out.String())
			}
		}
	}
}
