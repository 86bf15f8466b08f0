package pgserver

import "testing"

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
		"kkimurak/sameersbn-postgresql:17":                "sameersbn",
		"quay.io/sameersbn/postgresql:15-20230628":        "sameersbn",
		"zulip/zulip-postgresql:14":                       "official", // groonga/pgroonga's alpine image, FROM postgres:14-alpine
		"redis:7":                                         "",
		"edoburu/pgbouncer":                               "",
		"example/postgres-exporter:1":                     "",
	}
	for img, want := range cases {
		f, ok := FamilyOf(img)
		if got := f.Name; (ok && got != want) || (!ok && want != "") {
			t.Errorf("familyOf(%q) = %q, %v; want %q", img, got, ok, want)
		}
	}
}
