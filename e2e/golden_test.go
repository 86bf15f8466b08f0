package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/internal/probe"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// goldenGlobs are the archives to prove: the product's golden cases and
// this package's own samples.
var goldenGlobs = []string{"../testdata/script/*/*.txtar", "testdata/*.txtar"}

// TestGoldens proves every expected compose file with the real drivers: see
// checkArchive for what is checked.
func TestGoldens(t *testing.T) {
	var files []string
	for _, g := range goldenGlobs {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatalf("no archives match %v", goldenGlobs)
	}
	jdbcErr := probe.JDBCAvailable()
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file)) + "/" + strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if jdbcErr != nil && !pgtest.Required() && mentionsSocketFactory(ar) {
				t.Skipf("JDBC case, and the JDBC probe cannot run: %v", jdbcErr)
			}
			report(t, checkArchive(context.Background(), pgtest.Shared(t), ar, jdbcErr))
		})
	}
}

func report(t *testing.T, out outcome) {
	t.Helper()
	for _, n := range out.notes {
		t.Log(n)
	}
	if out.skip != "" {
		if len(out.problems) > 0 {
			t.Fatalf("skip (%s) with problems: %v", out.skip, out.problems)
		}
		t.Skip(out.skip)
	}
	for _, p := range out.problems {
		t.Error(p)
	}
}

func mentionsSocketFactory(ar *txtar.Archive) bool {
	for _, f := range ar.Files {
		if bytes.Contains(f.Data, []byte("socketFactory")) {
			return true
		}
	}
	return false
}
