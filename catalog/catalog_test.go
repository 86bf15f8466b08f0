package catalog

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rogpeppe/go-internal/txtar"
)

func TestEmbeddedEntriesLoad(t *testing.T) {
	es, err := load(imagesFS)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) == 0 {
		t.Fatal("no entries")
	}
}

// TestSchemaRejects checks that the loader refuses entries that are not
// entries: unverified, unknown fields, no reason, a file named otherwise.
func TestSchemaRejects(t *testing.T) {
	good := "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true, reason: r}\nsources:\n  - {url: https://example.org, read: r}\n"
	cases := map[string]string{
		"no sources":             "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true, reason: r}\n",
		"unknown field":          good + "colour: red\n",
		"no reason":              "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true}\nsources:\n  - {url: u, read: r}\n",
		"bad role":               "family: x\nimages: [x]\nvars:\n  - {key: H, role: hostname, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"uri_host on a host":     "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true, uri_host: localhost, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"uri_host no dir":        "family: x\nimages: [x]\nvars:\n  - {key: U, role: url, directory: false, uri_host: localhost, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"extension_dir relative": "family: x\nimages: [x]\nvars:\n  - {key: U, role: url, directory: true, extension_dir: providers, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"unless_conf relative":   "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true, unless_conf: {file: odoo.conf, key: db_host}, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"source no read":         "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, reason: r}\nsources:\n  - {url: u}\n",
		"tagged image":           "family: x\nimages: [x:1]\nvars:\n  - {key: H, role: host, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"port only":              "family: x\nimages: [x]\nvars:\n  - {key: P, role: port, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"query port host":        "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true, no_query_port: true, reason: r}\nsources:\n  - {url: u, read: r}\n",
	}
	for name, body := range cases {
		if _, err := load(fstest.MapFS{"images/x.yaml": {Data: []byte(body)}}); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	if _, err := load(fstest.MapFS{"images/y.yaml": {Data: []byte(good)}}); err == nil {
		t.Error("family x in y.yaml: loaded")
	}
	if _, err := load(fstest.MapFS{"images/x.yaml": {Data: []byte(good)}}); err != nil {
		t.Errorf("good entry: %v", err)
	}
}

func TestLookup(t *testing.T) {
	for image, want := range map[string]string{
		"odoo:17.0":                          "odoo",
		"docker.io/library/odoo:18":          "odoo",
		"odoo":                               "odoo",
		"odoo:16.0":                          "",
		"bitnami/pgbouncer:1.23.1":           "bitnami-pgbouncer",
		"registry.example/bitnami/pgbouncer": "bitnami-pgbouncer",
		"registry.example/billing:2.4":       "",
		"redmine:5.1-alpine":                 "redmine",
	} {
		got := ""
		if e := Lookup(image); e != nil {
			got = e.Family
		}
		if got != want {
			t.Errorf("Lookup(%q) = %q, want %q", image, got, want)
		}
	}
}

var imageLineRE = regexp.MustCompile(`(?m)^\s+image:\s*["']?([^"'\s#]+)`)

// TestEveryEntryHasAGolden fails when an entry is not exercised by a golden
// CLI case: some testdata/script archive must use one of its images and
// name each of its host and URL variables.
func TestEveryEntryHasAGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/script/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	var archives []string
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var inputs strings.Builder
		for _, af := range ar.Files {
			if !strings.HasPrefix(af.Name, "want") {
				inputs.Write(af.Data)
			}
		}
		archives = append(archives, inputs.String())
	}
	for _, e := range All() {
		if !exercised(e, archives) {
			t.Errorf("catalog entry %s: no golden in testdata/script uses one of %v with its variables", e.Family, e.Images)
		}
	}
}

func exercised(e *Entry, archives []string) bool {
	for _, a := range archives {
		uses := false
		for _, m := range imageLineRE.FindAllStringSubmatch(a, -1) {
			if Lookup(interpolationDefault(m[1])) == e {
				uses = true
			}
		}
		if !uses {
			continue
		}
		all := true
		for _, v := range e.Vars {
			if v.Role != RolePort && !strings.Contains(a, v.Key) {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}

// interpolationDefault reads the default of a ${VAR:-default} image
// reference, as compose would use it when VAR is unset.
func interpolationDefault(ref string) string {
	if _, def, ok := strings.Cut(ref, ":-"); ok && strings.HasPrefix(ref, "${") {
		return strings.TrimSuffix(def, "}")
	}
	return ref
}
