package revert

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/compose"
)

// revertExceptions are goldens whose migration drops information that no
// inverse can restore; each names what is lost.
var revertExceptions = map[string]string{
	"05-interpolated-jdbc.txtar":             "the host reference ${DB_HOST:-db} became localhost; revert writes the service name",
	"07-jdbc-sslmode.txtar":                  "sslmode=require was removed (it fails over a socket) and is not restored",
	"10-alias-container-name.txtar":          "the alias names pg-main and database became localhost; revert writes the service name",
	"12-half-migrated-bind-mount.txtar":      "the input was not TCP",
	"12-half-migrated-long-syntax.txtar":     "the input was not TCP",
	"npgsql-grammar.txtar":                   "a quoted Host (\"db\") and a port inside Host (db:5433) come back as Host=db;Port=<server port>",
	"comments.txtar":                         "the URI had no port; revert writes the server port explicitly",
	"rw-airflow.txtar":                       "the URI had no port; revert writes the server port explicitly",
	"22-known-images.txtar":                  "the Celery URI had no port; revert writes the server port explicitly",
	"catalog-apps.txtar":                     "the miniflux URI had no port; revert writes the server port explicitly",
	"rw-rails.txtar":                         "the URI had no port; revert writes the server port explicitly",
	"rw-postgis-build.txtar":                 "the URI had no port; revert writes the server port explicitly",
	"rw-hardened.txtar":                      "the tmpfs on the socket directory is not restored, and the URI had no port",
	"rw-quarkus.txtar":                       "the host reference ${DB_HOST:-postgres} became localhost; revert writes the service name",
	"15-socket-dir-spellings.txtar":          "the URI had no port; revert writes the server port explicitly",
	"17-sslmode-by-driver.txtar":             "sslmode was set to disable (TLS does not apply on a socket) and is not restored",
	"18-host-values-validate.txtar":          "the input was not TCP",
	"rw-nodepg.txtar":                        "PGPORT, added because the server listens on 5433, stays",
	"host-port-beside-host.txtar":            "PGPORT, added because the server listens on 5433, stays",
	"14-network-scoped-names.txtar":          "batch reached reporting by its alias db; revert writes the service name reporting",
	"hostname-domainname.txtar":              "api reached db by its hostname pg-primary; revert writes the service name db",
	"network-names.txtar":                    "linked reached archive by its links alias history; revert writes the service name archive",
	"trial-29-no-socket-variants.txtar":      "the URI had no port; revert writes the server port explicitly",
	"trial-26-bad-value.txtar":               "sslmode=verify-full was removed from the JDBC URL, and revert does not handle Npgsql values",
	"trial-19-interp-override.txtar":         "the host reference ${DB_HOST:-db} became localhost; revert writes the service name",
	"trial-19-dropped-refs-variant.txtar":    "the host and port references were dropped (UDS164); revert writes the service name and port",
	"trial-23-pgbouncer-db.txtar":            "the pooler is a database only with --db pgbouncer, which this test does not pass",
	"trial-23-socket-dir-service.txtar":      "the pooler is a database only with --db pool, which this test does not pass",
	"trial3-08-pgsslmode-tcp.txtar":          "sslmode=disable was added to the socket value (PGSSLMODE stays for the TCP values) and is not removed",
	"trial3-07-revert-dialects.txtar":        "the input was not TCP (the golden is revert's: want/compose.yml is the reverted file)",
	"trial3-04-npgsql-sslmode.txtar":         "SSL Mode=Require became Disable (Npgsql fails with it over a socket) and is not restored",
	"bom.txtar":                              "values in configuration files are not reverted, so the mounts of the services that read them stay",
	"pgsslmode-passthrough.txtar":            "PGSSLMODE passed through from the shell became PGSSLMODE=disable and is not restored",
	"20-spring-config-files.txtar":           "values in configuration files are not reverted, so the mounts of the services that read them stay",
	"21-rails-database-yml.txtar":            "the edited database.yml default is not reverted, so jobs keeps its mount",
	"config-files.txtar":                     "values in configuration files are not reverted, so the mounts of the services that read them stay",
	"config-hjson.txtar":                     "values in configuration files are not reverted, so the mounts of the services that read them stay",
	"rails-database-yml-plain.txtar":         "values in configuration files are not reverted, so the mounts of the services that read them stay",
	"rails-database-yml-quoted.txtar":        "values in configuration files are not reverted, so the mounts of the services that read them stay",
	"layout-anchor-volumes.txtar":            "a service whose anchored list others share without the socket keeps the list of its own the migration gave it (the socket entry removed), and so does the service shielded from an anchor's new entry",
	"layout-run-symlink.txtar":               "the tmpfs on the socket directory is not restored, and the URIs had no port",
	"layout-env-document.txtar":              "values in a configuration document in the environment are not reverted, so the mount of the service that reads them stays",
	"trial10-03-ente-inline-config.txtar":    "values in an inline config's content are not reverted, so the mount of the service that reads them stays",
	"trial10-03-inline-config-variant.txtar": "values in an inline config's content are not reverted, so the mounts of the services that read them stay",
}

// TestRevertRoundTrip checks revert(migrate(x)) == x for every golden case
// whose input is a TCP setup.
func TestRevertRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../testdata/script/*/*.txtar")
	tested := 0
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var in, want []byte
		dir := t.TempDir()
		// The migrated project: inputs overlaid with the expected outputs.
		files := map[string][]byte{}
		for _, af := range ar.Files {
			switch af.Name {
			case "compose.yml":
				in = af.Data
			case "want/compose.yml":
				want = af.Data
			}
			if name, ok := strings.CutPrefix(af.Name, "want/"); ok {
				files[name] = af.Data
			} else if _, done := files[af.Name]; !done {
				files[af.Name] = af.Data
			}
		}
		for name, data := range files {
			if name == "compose.yml" || name == "stderr" {
				continue
			}
			os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
			os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
		name := filepath.Base(f)
		if in == nil || want == nil || strings.Contains(string(ar.Comment), "crlf ") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, "compose.yml")
			res, err := Revert(context.Background(), []compose.Input{{Path: p, Data: want}}, analyze.DefaultOptions())
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
