package rewrite

import (
	"testing"

	"gopkg.in/yaml.v3"
)

func TestScalarSpanAndRender(t *testing.T) {
	cases := []struct {
		doc, want string
	}{
		{"k: plain value # comment\n", "plain value"},
		{"k: \"dq \\\" v\"\n", `"dq \" v"`},
		{"k: 'it''s'\n", `'it''s'`},
		{"k: &a anchored\n", "anchored"},
		{"k: [a, b]\n", "a"},
	}
	for _, c := range cases {
		src, err := NewSource("t.yml", []byte("services: {}\n"+c.doc))
		if err != nil {
			t.Fatal(err)
		}
		_, v := ownKey(src.Root, "k")
		inFlow := false
		if v.Kind == yaml.SequenceNode {
			v, inFlow = v.Content[0], true
		}
		sp, err := src.scalarSpan(v, inFlow)
		if err != nil {
			t.Fatalf("%q: %v", c.doc, err)
		}
		if got := string(src.Data[sp.Start:sp.End]); got != c.want {
			t.Errorf("%q: span %q, want %q", c.doc, got, c.want)
		}
	}
}

func TestScalarSpanRefusesMultiline(t *testing.T) {
	src, err := NewSource("t.yml", []byte("k: first\n  second\nl: |\n  block\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"k", "l"} {
		_, v := ownKey(src.Root, key)
		if _, err := src.scalarSpan(v, false); err == nil {
			t.Errorf("%s: multi-line value accepted", key)
		}
	}
}

func TestRenderScalarKeepsStyle(t *testing.T) {
	cases := []struct {
		v     string
		style yaml.Style
		flow  bool
		want  string
	}{
		{"a$$b&c=d", 0, false, "a$$b&c=d"},
		{"has: colon", 0, false, `"has: colon"`},
		{"a,b", 0, true, `"a,b"`},
		{"x", yaml.DoubleQuotedStyle, false, `"x"`},
		{"it's", yaml.SingleQuotedStyle, false, `'it''s'`},
		{"true", 0, false, `"true"`},
		{"a\tb", 0, false, "a\tb"},
		{"U=postgres:///x?host=/var/run/postgresql", 0, true, `"U=postgres:///x?host=/var/run/postgresql"`},
		{"U=postgres:///x?host=/var/run/postgresql", 0, false, "U=postgres:///x?host=/var/run/postgresql"},
		{"a\tb", yaml.DoubleQuotedStyle, false, "\"a\tb\""},
		{"a\t#b", 0, false, "\"a\t#b\""},
		{"a\t", 0, false, "\"a\t\""},
		{"a\x01", yaml.DoubleQuotedStyle, false, `"a\x01"`},
	}
	for _, c := range cases {
		if got := renderScalar(c.v, c.style, c.flow); got != c.want {
			t.Errorf("renderScalar(%q) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestRepositoryAndFamily(t *testing.T) {
	cases := map[string]string{
		"postgres:13.15":                                  "official",
		"docker.io/library/postgres:16-alpine":            "official",
		"postgres@sha256:abc":                             "official",
		"registry.example:5000/library/postgres:16":       "official", // a pull-through cache keeps the path
		"public.ecr.aws/docker/library/postgres:16":       "official",
		"registry.example:5000/mirror/postgres:16":        "",         // another repository: --db (trial3 item 10)
		"supabase/postgres:15.8.1.085":                    "",         // catalogued, but no: (peer local lines)
		"cimg/postgres:16.4":                              "official", // the official entrypoint, socket in /tmp
		"ghcr.io/cloudnative-pg/postgresql:17":            "",         // catalogued, but no: (the operator decides)
		"pgautoupgrade/pgautoupgrade:17-alpine":           "official",
		"tensorchord/pgvecto-rs:pg14-v0.2.0":              "official",
		"quay.io/sclorg/postgresql-16-c9s":                "sclorg",
		"registry.redhat.io/rhel9/postgresql-15":          "sclorg",
		"quay.io/fedora/postgresql-16":                    "sclorg",
		"fedora/postgresql":                               "", // the old Fedora-Dockerfiles image, not sclorg's
		"bitnamilegacy/postgresql-repmgr:16":              "bitnami",
		"ghcr.io/postgresml/pgcat:latest":                 "", // a pooler
		"ghcr.io/immich-app/postgres:14-vectorchord0.4.3": "official",
		"postgis/postgis:15-3.4":                          "official",
		"timescale/timescaledb-ha:pg16":                   "official",
		"bitnami/postgresql:16":                           "bitnami",
		"redis:7":                                         "",
		"edoburu/pgbouncer":                               "",
		"example/postgres-exporter:1":                     "",
	}
	for img, want := range cases {
		f, ok := familyOf(img)
		if got := f.Name; (ok && got != want) || (!ok && want != "") {
			t.Errorf("familyOf(%q) = %q, %v; want %q", img, got, ok, want)
		}
	}
}
