package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/schematest"
)

// sarifLocations is what TestSARIFURIsFromAnyFolder reads of a SARIF log.
type sarifLocations struct {
	Runs []struct {
		OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
		Results            []struct {
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// TestSARIFURIsFromAnyFolder (issue #23 point 3): GitHub code scanning
// reads a relative artifact URI from the repository root, so the log must
// name a file the same way whatever folder the command runs in and
// however the file is named on the command line: relative to the git
// top level, with uriBaseId %SRCROOT% mapped to that folder
// (originalUriBaseIds, SARIF 2.1.0 §3.14.14). Without a repository the
// root is the working directory.
func TestSARIFURIsFromAnyFolder(t *testing.T) {
	repo := t.TempDir()
	outside := t.TempDir()
	compose := "services:\n  app:\n    image: a\n    environment:\n      U: postgres://u@db/x\n  db:\n    image: postgres\n"
	for _, d := range []string{".git", "svc/api", "docs"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	abs := filepath.Join(repo, "svc/api/compose.yml")
	if err := os.WriteFile(abs, []byte(compose), 0o644); err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(outside, "compose.yml")
	if err := os.WriteFile(loose, []byte(compose), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := schematest.Compile(t, "../../report/testdata/sarif-2.1.0-subset.schema.json")
	cases := []struct {
		wd          string
		args        []string
		uri, base   string
		root        string
		docOnStderr bool
	}{
		{repo, []string{"plan", "svc/api/compose.yml"}, "svc/api/compose.yml", "%SRCROOT%", repo, false},
		{filepath.Join(repo, "svc/api"), []string{"plan", "compose.yml"}, "svc/api/compose.yml", "%SRCROOT%", repo, false},
		{filepath.Join(repo, "docs"), []string{"plan", "-f", "../svc/api/compose.yml"}, "svc/api/compose.yml", "%SRCROOT%", repo, false},
		{outside, []string{"plan", abs}, "svc/api/compose.yml", "%SRCROOT%", repo, false},
		{filepath.Join(repo, "svc"), []string{"--consumer", "app/U=empty", "--check", "api/compose.yml"}, "svc/api/compose.yml", "%SRCROOT%", repo, true},
		// No repository: the working directory is the root.
		{outside, []string{"plan", "compose.yml"}, "compose.yml", "%SRCROOT%", outside, false},
		// A file in no repository, run from one: an absolute file URI, no
		// base (the root stays the working directory's repository).
		{filepath.Join(repo, "docs"), []string{"plan", loose}, "file://" + filepath.ToSlash(loose), "", repo, false},
	}
	for _, c := range cases {
		t.Chdir(c.wd)
		var out, errb bytes.Buffer
		code := run(append(append([]string{"uds-migrate"}, c.args...), "--format", "sarif"), &out, &errb)
		doc := out.Bytes()
		if c.docOnStderr {
			doc = errb.Bytes()
		}
		if code == exitError {
			t.Fatalf("in %s: uds-migrate %v: exit 2: %s", c.wd, c.args, errb.String())
		}
		if err := oneDocument(doc, schema); err != nil {
			t.Errorf("in %s: uds-migrate %v: %v\n%s", c.wd, c.args, err, doc)
			continue
		}
		var log sarifLocations
		if err := json.Unmarshal(doc, &log); err != nil {
			t.Fatal(err)
		}
		run := log.Runs[0]
		if len(run.Results) == 0 {
			t.Fatalf("in %s: uds-migrate %v: no results (UDS102 expected)", c.wd, c.args)
		}
		for _, r := range run.Results {
			al := r.Locations[0].PhysicalLocation.ArtifactLocation
			if al.URI != c.uri || al.URIBaseID != c.base {
				t.Errorf("in %s: uds-migrate %v: artifactLocation %+v, want uri %q uriBaseId %q", c.wd, c.args, al, c.uri, c.base)
			}
		}
		if got, want := run.OriginalURIBaseIDs["%SRCROOT%"].URI, "file://"+filepath.ToSlash(c.root)+"/"; got != want {
			t.Errorf("in %s: uds-migrate %v: %%SRCROOT%% is %q, want %q", c.wd, c.args, got, want)
		}
	}
}
