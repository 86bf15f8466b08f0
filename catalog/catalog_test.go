package catalog

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rogpeppe/go-internal/txtar"
	"gopkg.in/yaml.v3"
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
		"default on a port":      "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, reason: r}\n  - {key: P, role: port, default: db, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"default host:port":      "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, default: \"db:5432\", reason: r}\nsources:\n  - {url: u, read: r}\n",
		"no_socket dir":          "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true, no_socket: true, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"no_socket port":         "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, reason: r}\n  - {key: P, role: port, no_socket: true, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"short commit":           "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, reason: r}\nsources:\n  - {repo: o/r, file: f, commit: abc1234, read: r}\n",
		"commit on a url":        "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, reason: r}\nsources:\n  - {url: u, commit: 0123456789abcdef0123456789abcdef01234567, read: r}\n",
		"bad pattern":            "family: x\nimages: [\"x[\"]\nvars:\n  - {key: H, role: host, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"server with vars":       "family: x\nimages: [x]\nserver: {entrypoint: official, socket_dir: /s, trust_local: true, local: l}\nvars:\n  - {key: H, role: host, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"server relative dir":    "family: x\nimages: [x]\nserver: {entrypoint: official, socket_dir: s, trust_local: true, local: l}\nsources:\n  - {url: u, read: r}\n",
		"server no dir":          "family: x\nimages: [x]\nserver: {entrypoint: official, trust_local: true, local: l}\nsources:\n  - {url: u, read: r}\n",
		"server dir and no":      "family: x\nimages: [x]\nserver: {entrypoint: official, socket_dir: /s, trust_local: true, local: l, no: n}\nsources:\n  - {url: u, read: r}\n",
		"server bad entrypoint":  "family: x\nimages: [x]\nserver: {entrypoint: debian, socket_dir: /s, trust_local: true, local: l}\nsources:\n  - {url: u, read: r}\n",
		"server no entrypoint":   "family: x\nimages: [x]\nserver: {socket_dir: /s, trust_local: true, local: l}\nsources:\n  - {url: u, read: r}\n",
		"server no local":        "family: x\nimages: [x]\nserver: {entrypoint: official, socket_dir: /s, trust_local: true}\nsources:\n  - {url: u, read: r}\n",
		"server and pooler":      "family: x\nimages: [x]\npooler: true\nserver: {entrypoint: official, socket_dir: /s, trust_local: true, local: l}\nsources:\n  - {url: u, read: r}\n",
		"no vars, not a pooler":  "family: x\nimages: [x]\nvars: []\nsources:\n  - {url: u, read: r}\n",
		"requires on no socket":  "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: false, requires: [{key: S, value: \"false\", reason: r}], reason: r}\nsources:\n  - {url: u, read: r}\n",
		"requires no reason":     "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true, requires: [{key: S, value: \"false\"}], reason: r}\nsources:\n  - {url: u, read: r}\n",
		"requires itself":        "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true, requires: [{key: H, value: v, reason: r}], reason: r}\nsources:\n  - {url: u, read: r}\n",
		"socket_var no socket":   "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: false, socket_var: S, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"socket_var on a url":    "family: x\nimages: [x]\nvars:\n  - {key: U, role: url, directory: true, socket_var: S, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"socket_var itself":      "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true, socket_var: H, reason: r}\nsources:\n  - {url: u, read: r}\n",
		"socket_var host_port":   "family: x\nimages: [x]\nvars:\n  - {key: H, role: host, directory: true, host_port: true, socket_var: S, reason: r}\nsources:\n  - {url: u, read: r}\n",
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
	server := "family: s\nimages: [\"s/pg-*\"]\nserver: {entrypoint: official, socket_dir: /s, trust_local: true, local: l}\nsources:\n  - {url: u, read: r}\n"
	pooler := "family: p\nimages: [p]\npooler: true\nvars: []\nsources:\n  - {url: u, read: r}\n"
	if _, err := load(fstest.MapFS{"images/s.yaml": {Data: []byte(server)}, "images/p.yaml": {Data: []byte(pooler)}}); err != nil {
		t.Errorf("good server and pooler entries: %v", err)
	}
	overlap := strings.ReplaceAll(strings.ReplaceAll(good, "[x]", "[s/pg-16]"), "family: x", "family: o")
	if _, err := load(fstest.MapFS{"images/s.yaml": {Data: []byte(server)}, "images/o.yaml": {Data: []byte(overlap)}}); err == nil {
		t.Error("an image that another entry's pattern matches: loaded")
	}
}

// TestVarIn: a variable with requires takes the socket in a service that
// has the required values (an unset one counts only with or_unset), and
// otherwise is one without a directory whose reason names the value; a
// variable without requires is returned as it is.
func TestVarIn(t *testing.T) {
	v := &Var{Key: "H", Role: RoleHost, Directory: true, Reason: "yes", Requires: []Require{
		{Key: "SSL", Value: "false", Reason: "asks the socket for SSL"},
		{Key: "REQ", Value: "false", OrUnset: true, Reason: "requires SSL"},
	}}
	for _, c := range []struct {
		env  map[string]string
		dir  bool
		want string
	}{
		{map[string]string{"SSL": "false"}, true, "yes"},
		{map[string]string{"SSL": "false", "REQ": "false"}, true, "yes"},
		{map[string]string{}, false, `SSL is unset here, not "false": asks the socket for SSL`},
		{map[string]string{"SSL": "true"}, false, `SSL is "true" here, not "false": asks the socket for SSL`},
		{map[string]string{"SSL": "FALSE"}, false, `SSL is "FALSE" here`},
		{map[string]string{"SSL": "false", "REQ": "true"}, false, `REQ is "true" here, not "false": requires SSL`},
	} {
		got := v.In(func(k string) string { return c.env[k] })
		if got.Directory != c.dir || !strings.HasPrefix(got.Reason, c.want) {
			t.Errorf("In(%v) = directory %v, %q; want %v, %q", c.env, got.Directory, got.Reason, c.dir, c.want)
		}
	}
	if !v.Directory || v.Reason != "yes" {
		t.Error("In changed the entry's variable instead of a copy")
	}
	plain := &Var{Key: "H", Role: RoleHost, Directory: true, Reason: "yes"}
	if plain.In(func(string) string { return "" }) != plain {
		t.Error("a variable without requires is not returned as it is")
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

// TestLookupMatchesAsDocker checks that image references are read as
// docker reads them (distribution/reference): a first path component with a
// dot or a port, or localhost, is a registry host and any registry
// matches; docker.io's library/ is the official namespace; the tag and the
// digest are not part of the repository; sibling images of one application
// are each found (casdoor and its all-in-one image in one family, the
// mastodon-streaming image in its own); and a look-alike
// repository in another namespace is not.
func TestLookupMatchesAsDocker(t *testing.T) {
	const digest = "@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for image, want := range map[string]string{
		"odoo:17.0":                                     "odoo",
		"docker.io/odoo:17.0":                           "odoo",
		"index.docker.io/library/odoo:17.0":             "odoo",
		"library/odoo:17.0":                             "odoo",
		"odoo" + digest:                                 "odoo",
		"odoo:17.0" + digest:                            "odoo",
		"odoo:16.0" + digest:                            "", // the tag still decides min_version
		"registry.example.com:5000/odoo:17":             "odoo",
		"localhost:5000/library/odoo:18" + digest:       "odoo",
		"localhost/odoo:18":                             "odoo",
		"mirror:5000/odoo":                              "odoo",
		"ghcr.io/goauthentik/server:2024.8":             "authentik",
		"docker.io/goauthentik/server" + digest:         "authentik",
		"quay.io/prometheuscommunity/postgres-exporter": "postgres-exporter",
		"ghcr.io/mastodon/mastodon:v4.3.8":              "mastodon",
		"ghcr.io/mastodon/mastodon-streaming:v4.3.8":    "mastodon-streaming",
		"tootsuite/mastodon-streaming" + digest:         "mastodon-streaming",
		"mastodon/mastodon-streaming:v4.2.0":            "", // before the split image (min_version)
		"svhd/logto:1.27":                               "logto",
		"ghcr.io/logto-io/logto:1.27":                   "logto",
		"oryd/kratos:v1.3.1" + digest:                   "ory-kratos",
		"casbin/casdoor-all-in-one:latest":              "casdoor",
		"  Docker.IO/Redash/Redash:25.1.0 ":             "redash",
		"someone/odoo:17.0":                             "",
		"odoo-custom:17.0":                              "",
		"ghcr.io/someone/mastodon:v4.3.8":               "",
		"goauthentik/server-proxy":                      "",
		"oryd/kratos-selfservice-ui-node:v1.3.1":        "",
		// Server images (server: entries) and poolers match the same way.
		"postgres:16": "postgres",
		"docker.io/library/postgres:16-alpine" + digest:                                "postgres",
		"public.ecr.aws/docker/library/postgres:17":                                    "postgres",
		"mirror.gcr.io/library/postgres:16":                                            "postgres",
		"mycorp/postgres:16":                                                           "",
		"ghcr.io/immich-app/postgres:14-vectorchord0.4.3":                              "immich-postgres",
		"docker.io/tensorchord/pgvecto-rs:pg14-v0.2.0":                                 "pgvecto-rs",
		"ghcr.io/tensorchord/vchord-postgres:pg17-v0.4.3":                              "vchord-postgres",
		"quay.io/sclorg/postgresql-16-c9s":                                             "sclorg-postgresql",
		"quay.io/sclorg/postgresql-15-c10s" + digest:                                   "sclorg-postgresql",
		"registry.redhat.io/rhel9/postgresql-15":                                       "sclorg-postgresql",
		"registry.access.redhat.com/rhscl/postgresql-12-rhel7":                         "sclorg-postgresql",
		"quay.io/fedora/postgresql-16":                                                 "sclorg-postgresql",
		"fedora/postgresql":                                                            "", // Fedora-Dockerfiles' old image, no version
		"quay.io/sclorg/postgresql-exporter":                                           "",
		"docker.io/bitnamilegacy/postgresql:16.4.0":                                    "bitnami-postgresql",
		"bitnami/postgresql-repmgr:16":                                                 "bitnami-postgresql-repmgr",
		"ghcr.io/cloudnative-pg/postgresql:17.2":                                       "cloudnative-pg-postgresql",
		"registry.developers.crunchydata.com/crunchydata/crunchy-postgres:ubi8-16.4-0": "crunchy-postgres",
		"ghcr.io/postgresml/pgcat:v1.2.0":                                              "pgcat",
		"bitnamilegacy/pgbouncer:1.23.1":                                               "bitnami-pgbouncer",
		// Client images added for issue #20, with the prefixes their docs use.
		"calcom.docker.scarf.sh/calcom/cal.com:v5.0.8":              "calcom",
		"ghcr.io/atuinsh/atuin:v18.4.0" + digest:                    "atuin",
		"ghcr.io/ellie/atuin:main":                                  "atuin",
		"ghcr.io/zulip/zulip-server:12.1-0":                         "zulip",
		"ghcr.io/zulip/zulip-server:11.5-0":                         "", // before the 12.x image (min_version)
		"zulip/docker-zulip:11.5-0":                                 "zulip-legacy",
		"ghcr.io/mealie-recipes/mealie:v2.0.0":                      "mealie",
		"docker.io/prodrigestivill/postgres-backup-local:16-alpine": "postgres-backup-local",
		"vikunja/vikunja:0.24.6":                                    "vikunja",
		"vikunja/api:0.20.0":                                        "", // before unix socket support (min_version)
		"docker.io/library/xwiki:16-postgres-tomcat":                "xwiki",
		"someone/xwiki:16":                                          "",
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

func TestSplit(t *testing.T) {
	for image, want := range map[string][2]string{
		"odoo":                        {"odoo", ""},
		"docker.io/library/odoo:17.0": {"odoo", "17.0"},
		"registry.example.com:5000/a/b:v1@sha256:00": {"a/b", "v1"},
		"registry:5000/a/b@sha256:00":                {"a/b", ""},
		"localhost:5000/a":                           {"a", ""},
		"a/b/c:1":                                    {"a/b/c", "1"},
	} {
		repo, tag := Split(image)
		if repo != want[0] || tag != want[1] {
			t.Errorf("Split(%q) = %q, %q, want %q, %q", image, repo, tag, want[0], want[1])
		}
	}
}

var imageLineRE = regexp.MustCompile(`(?m)^\s+image:\s*["']?([^"'\s#]+)`)

// TestEveryEntryHasAGolden fails when an entry is not exercised by a golden
// CLI case: some testdata/script archive must use one of its images and
// name each of its host and URL variables.
func TestEveryEntryHasAGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/script/*/*.txtar")
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

// TestEveryServerFamilyHasAGolden fails when a server family is not
// exercised by a golden CLI case: some testdata/script archive must have a
// compose service running one of its images and expect what the tool makes
// of it: that service's socket volume on the family's socket directory
// ("SERVICE-socket:DIR"), or, for a family whose clients stay on TCP (no:),
// UDS165 naming the service as a PostgreSQL server.
func TestEveryServerFamilyHasAGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/script/*/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	type golden struct {
		services [][2]string // service and image, from every compose file
		wants    string      // the script and the expected outputs
	}
	var archives []golden
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g := golden{wants: string(ar.Comment)}
		for _, af := range ar.Files {
			base := path.Base(af.Name)
			switch {
			case strings.HasPrefix(af.Name, "want") || strings.HasPrefix(base, "want"):
				g.wants += string(af.Data)
			case strings.HasSuffix(base, ".yml") || strings.HasSuffix(base, ".yaml"):
				var doc struct {
					Services map[string]struct {
						Image string `yaml:"image"`
					} `yaml:"services"`
				}
				if yaml.Unmarshal(af.Data, &doc) == nil {
					for name, svc := range doc.Services {
						g.services = append(g.services, [2]string{name, interpolationDefault(svc.Image)})
					}
				}
			}
		}
		archives = append(archives, g)
	}
	servers := Servers()
	if len(servers) == 0 {
		t.Fatal("no server families")
	}
	for _, e := range servers {
		found := false
		for _, g := range archives {
			for _, svc := range g.services {
				name, img := svc[0], svc[1]
				want := name + "-socket:" + e.Server.SocketDir + "\n"
				if e.Server.No != "" {
					want = "UDS165: .* connects to " + name + ", a PostgreSQL server"
				}
				if Lookup(img) == e && regexp.MustCompile(want).MatchString(g.wants) {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("server family %s: no golden in testdata/script runs one of %v as a service and expects its socket volume (or UDS165 for a no: family)", e.Family, e.Images)
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
		for _, f := range e.Files {
			// the file's setting: its last key (path, host) in the archive
			if !strings.Contains(a, f.Key[strings.LastIndexByte(f.Key, '.')+1:]) {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}

var interpolationRE = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*))?\}`)

// interpolationDefault reads an image reference as compose would with its
// variables unset: each ${VAR:-default} (or ${VAR-default}) is its default,
// ${VAR} is empty ("${IMAGE:-postgres:16}", "appflowyinc/gotrue:${GOTRUE_VERSION:-latest}").
func interpolationDefault(ref string) string {
	return interpolationRE.ReplaceAllString(ref, "$1")
}

// TestServerImages checks the list the "no PostgreSQL service found"
// message gives: the official image first, one image of every server
// family whose clients the tool migrates, none of a no: family.
func TestServerImages(t *testing.T) {
	list := ServerImages()
	if !strings.HasPrefix(list, "postgres, ") {
		t.Errorf("ServerImages() = %q: want the official image first", list)
	}
	names := strings.Split(list, ", ")
	for _, e := range Servers() {
		if got := slices.Contains(names, e.Images[0]); got != (e.Server.No == "") {
			t.Errorf("ServerImages() lists %s: %v, want %v (no: %q)", e.Images[0], got, !got, e.Server.No)
		}
	}
}

// TestLookupSince: a variable's since block applies from its version on
// and to non-numeric tags (taken as current), and cites its own sources
// first; older tags keep the variable as written.
func TestLookupSince(t *testing.T) {
	for image, want := range map[string]bool{
		"dessalines/lemmy:0.19.5":        true,
		"dessalines/lemmy:0.19.20":       true,
		"dessalines/lemmy:1.0.0-alpha.6": false,
		"dessalines/lemmy:1.0.0":         false,
		"dessalines/lemmy:latest":        false,
		"dessalines/lemmy":               false,
	} {
		e := Lookup(image)
		if e == nil || e.Var("LEMMY_DATABASE_URL") == nil {
			t.Fatalf("%s: no entry or variable", image)
		}
		v := e.Var("LEMMY_DATABASE_URL")
		if v.Directory != want {
			t.Errorf("%s: directory %v, want %v", image, v.Directory, want)
		}
		if first := e.Sources[0].Commit; want == (first == v.Since.Sources[0].Commit) && v.Since != nil {
			t.Errorf("%s: first source %s", image, e.Sources[0].Cite())
		}
	}
	if v := Lookup("dessalines/lemmy:0.19.5").Var("LEMMY_DATABASE_URL"); v.Since == nil || v.Since.Directory {
		t.Error("the entry lost its since block")
	}
	_ = Lookup("dessalines/lemmy:1.0.0")
	if !Lookup("dessalines/lemmy:0.19.5").Var("LEMMY_DATABASE_URL").Directory {
		t.Error("a 1.0 lookup changed the shared entry instead of a copy")
	}
}

// TestPlanSchemaNamesEveryServerKind: plan --format json writes a server
// entry's entrypoint kind as databases[].family, and docs/plan.schema.json
// enumerates the values; a kind the schema lacks fails every consumer that
// validates the document (CI stop: sameersbn, trial 8 #5).
func TestPlanSchemaNamesEveryServerKind(t *testing.T) {
	data, err := os.ReadFile("../docs/plan.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties struct {
			Databases struct {
				Items struct {
					Properties struct {
						Family struct {
							Enum []string `json:"enum"`
						} `json:"family"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"databases"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	enum := schema.Properties.Databases.Items.Properties.Family.Enum
	if len(enum) == 0 {
		t.Fatal("plan.schema.json: no databases[].family enum")
	}
	for _, e := range Servers() {
		if e.Server.No != "" && e.Server.Entrypoint == "" {
			continue // a server whose socket the tool does not set up: never in databases[]
		}
		if !slices.Contains(enum, e.Server.Entrypoint) {
			t.Errorf("%s: entrypoint kind %q is not in plan.schema.json's databases[].family enum %v", e.Family, e.Server.Entrypoint, enum)
		}
	}
}
