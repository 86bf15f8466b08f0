package rewrite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// revertExceptions are goldens whose migration drops information that no
// inverse can restore; each names what is lost.
var revertExceptions = map[string]string{
	"05-interpolated-jdbc.txtar":        "the host reference ${DB_HOST:-db} became localhost; revert writes the service name",
	"07-jdbc-sslmode.txtar":             "sslmode=require was removed (it fails over a socket) and is not restored",
	"10-alias-container-name.txtar":     "the alias names pg-main and database became localhost; revert writes the service name",
	"12-half-migrated-bind-mount.txtar": "the input was not TCP",
}

// TestRevertRoundTrip checks revert(migrate(x)) == x for every golden case
// whose input is a TCP setup.
func TestRevertRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../testdata/script/*.txtar")
	tested := 0
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var in, want []byte
		dir := t.TempDir()
		for _, af := range ar.Files {
			switch af.Name {
			case "compose.yml":
				in = af.Data
			case "want/compose.yml":
				want = af.Data
			}
			if !strings.HasPrefix(af.Name, "want/") && af.Name != "compose.yml" {
				os.WriteFile(filepath.Join(dir, filepath.Base(af.Name)), af.Data, 0o644)
			}
		}
		name := filepath.Base(f)
		if in == nil || want == nil || strings.Contains(string(ar.Comment), "crlf ") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, "compose.yml")
			res, err := Revert(context.Background(), []Input{{Path: p, Data: want}}, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			got := string(res.Files[0].After)
			if why, ok := revertExceptions[name]; ok {
				if got == string(in) {
					t.Errorf("listed as an exception (%s) but round-trips: remove it from the list", why)
				}
				return
			}
			tested++
			if got != string(in) {
				t.Errorf("revert(migrate(x)) != x:\n--- got ---\n%s\n--- want ---\n%s", got, in)
			}
		})
	}
	if tested < 5 {
		t.Fatalf("only %d goldens round-tripped; the golden layout changed?", tested)
	}
}
