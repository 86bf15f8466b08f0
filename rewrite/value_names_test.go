package rewrite

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/uds-migrate/uds-migrate/validate"
)

// notValueKeys are the Key of a finding about a service's construct
// rather than one of its values: a mount, the command, the image.
var notValueKeys = map[string]bool{"volumes": true, "tmpfs": true, "command": true, "entrypoint": true,
	"healthcheck": true, "image": true, "build": true, "user": true, "deploy": true}

// notValueCodes are codes whose Key names a value they are not about:
// UDS101 is the service's need (junixsocket on its classpath), said once
// per service at its first JDBC value; the nginx codes (UDS3xx) are about
// an nginx directive, which their message quotes.
func notValueCode(code string) bool { return code == "UDS101" || strings.HasPrefix(code, "UDS3") }

// TestValueFindingsNameTheValue runs validate and migrate over every
// compose file of the golden archives: each finding about a value names
// its service and its key in the message, as the text, gcc and SARIF
// outputs have no other field for them (trial 5 D8: UDS204 for PGHOST, a
// DSN and a URI said only "host must name the socket directory").
func TestValueFindingsNameTheValue(t *testing.T) {
	root, _ := filepath.Abs("../testdata/script")
	archives, _ := filepath.Glob(filepath.Join(root, "*", "*.txtar"))
	if len(archives) == 0 {
		t.Fatal("no golden archives")
	}
	checked := map[string]int{}
	services := regexp.MustCompile(`(?m)^services:`)
	for _, a := range archives {
		dir, inputs := writeGolden(t, a)
		var composeFiles []string
		for _, f := range inputs {
			if ext := filepath.Ext(f.Name); (ext == ".yml" || ext == ".yaml") && services.Match(f.Data) {
				composeFiles = append(composeFiles, f.Name)
			}
		}
		for _, name := range composeFiles {
			t.Chdir(filepath.Join(dir, filepath.Dir(name)))
			in := []Input{{Path: filepath.Base(name), Data: mustRead(t, filepath.Base(name))}}
			var fs []Finding
			if v, err := validate.Validate(context.Background(), in, DefaultOptions()); err == nil {
				fs = append(fs, v...)
			}
			if res, err := Migrate(context.Background(), in, DefaultOptions()); err == nil {
				fs = append(fs, res.Findings...)
			}
			for _, f := range fs {
				if f.Service == "" || f.Key == "" || notValueKeys[f.Key] || notValueCode(f.Code) {
					continue
				}
				checked[f.Code]++
				if !namesWord(f.Message, f.Service, `\w-`) || !namesWord(f.Message, f.Key, `\w.`) {
					t.Errorf("%s, %s: %s about %s/%s does not name them: %s", filepath.Base(a), name, f.Code, f.Service, f.Key, f.Message)
				}
			}
		}
	}
	// The check saw the codes of trial 5 D8 and of validate's value checks.
	for _, code := range []string{"UDS105", "UDS201", "UDS202", "UDS203", "UDS204", "UDS205", "UDS206", "UDS207", "UDS211", "UDS215", "UDS216", "UDS221"} {
		if checked[code] == 0 {
			t.Errorf("no golden gives %s: the check no longer covers it", code)
		}
	}
}

// namesWord reports whether msg holds w with none of the characters of
// class (a regexp character class body) right before or after it.
func namesWord(msg, w, class string) bool {
	return regexp.MustCompile(`(^|[^` + class + `])` + regexp.QuoteMeta(w) + `($|[^` + class + `])`).MatchString(msg)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeGolden writes the input files of the golden archive at path (not
// its want/ expectations, at any depth) into a new directory and returns
// the directory and those files.
func writeGolden(t *testing.T, path string) (string, []txtar.File) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out []txtar.File
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") || strings.Contains(f.Name, "/want/") {
			continue
		}
		p := filepath.Join(dir, f.Name)
		if os.MkdirAll(filepath.Dir(p), 0o755) != nil || os.WriteFile(p, f.Data, 0o644) != nil {
			t.Fatalf("%s: cannot write %s", path, f.Name)
		}
		out = append(out, f)
	}
	return dir, out
}
