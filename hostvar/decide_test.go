package hostvar

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/finding"
)

// query loads a one-file project and asks about service/key.
func query(t *testing.T, doc, service, key string, hostVars ...string) Query {
	t.Helper()
	p, err := compose.Load(context.Background(), []compose.Input{{Path: filepath.Join(t.TempDir(), "compose.yml"), Data: []byte(doc)}}, compose.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Project: p, Scopes: NewScopes(p, p.ReadFile, func(string, error) {}), DB: "db", DBPort: 5432,
		MountPath: "/var/run/postgresql", HostVars: hostVars}
	for _, v := range p.ServiceEnv(service) {
		if v.Key == key {
			q.Var = v
		}
	}
	if q.Var.Key == "" {
		t.Fatalf("%s has no %s", service, key)
	}
	return q
}

// TestHostVarOrder: the user's word, then evidence, then the catalogue
// (issue #21), and what each says.
func TestHostVarOrder(t *testing.T) {
	const chatwoot = "services:\n  app:\n    image: chatwoot/chatwoot:v3\n    environment:\n      POSTGRES_HOST: db\n%s  db:\n    image: postgres:16\n"
	const authelia = "services:\n  auth:\n    image: authelia/authelia:4.38\n    environment:\n      AUTHELIA_STORAGE_POSTGRES_HOST: db\n  db:\n    image: postgres:16\n"
	for _, tc := range []struct {
		name, doc, service, key string
		hostVars                []string
		known, takesDir         bool
		kind, stay              string // Basis.Kind, or the Stay's code
	}{
		{name: "catalogue: takes a directory", doc: strings.Replace(chatwoot, "%s", "", 1), service: "app", key: "POSTGRES_HOST",
			known: true, takesDir: true, kind: finding.BasisCatalogue},
		{name: "catalogue: unless DATABASE_URL is set", doc: strings.Replace(chatwoot, "%s", "      DATABASE_URL: postgres://u@db/app\n", 1), service: "app", key: "POSTGRES_HOST",
			known: true, takesDir: false, kind: finding.BasisCatalogue},
		{name: "catalogue: takes none", doc: authelia, service: "auth", key: "AUTHELIA_STORAGE_POSTGRES_HOST",
			known: true, takesDir: false, kind: finding.BasisCatalogue},
		{name: "the user's word beats the catalogue", doc: authelia, service: "auth", key: "AUTHELIA_STORAGE_POSTGRES_HOST", hostVars: []string{"auth/AUTHELIA_STORAGE_POSTGRES_HOST"},
			known: true, takesDir: true, kind: finding.BasisUser},
		{name: "evidence: the service's command dials it over TCP", doc: strings.Replace(chatwoot, "%s", "    command: [\"sh\", \"-c\", \"until nc -z $$POSTGRES_HOST 5432; do sleep 1; done; exec app\"]\n", 1),
			service: "app", key: "POSTGRES_HOST", known: true, stay: "UDS120"},
		{name: "nothing knows an uncatalogued image's variable", doc: "services:\n  app:\n    image: example/app:1\n    environment:\n      DB_HOST: db\n  db:\n    image: postgres:16\n",
			service: "app", key: "DB_HOST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := query(t, tc.doc, tc.service, tc.key, tc.hostVars...).HostVar("")
			if ok != tc.known {
				t.Fatalf("known = %v, want %v (%+v)", ok, tc.known, v)
			}
			if tc.stay != "" {
				if v.Stay == nil || v.Stay.Code != tc.stay {
					t.Fatalf("stay = %+v, want %s", v.Stay, tc.stay)
				}
				return
			}
			if v.Stay != nil || v.TakesDir != tc.takesDir || v.Basis.Kind != tc.kind {
				t.Errorf("verdict = takes dir %v, basis %q, stay %+v; want %v, %q", v.TakesDir, v.Basis.Kind, v.Stay, tc.takesDir, tc.kind)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		key       string
		host, app bool
		portKey   string
	}{
		{"PGHOST", true, true, "PGPORT"},
		{"DBHOST", true, true, "DBPORT"},
		{"DB_HOST", true, true, "DB_PORT"},
		{"GITEA__database__HOST", true, true, "GITEA__database__PORT"},
		{"KC_DB_URL_HOST", true, true, "KC_DB_URL_PORT"},
		{"spring.datasource.host", true, true, "spring.datasource.port"},
		{"DB_SERVER", true, true, "DB_SERVER_PORT"},
		{"FILESERVER", false, false, "FILESERVER_PORT"},
		{"DB_NAME", false, false, "DB_NAME_PORT"},
	} {
		if got := IsHostKey(tc.key); got != tc.host {
			t.Errorf("IsHostKey(%s) = %v", tc.key, got)
		}
		if got := IsAppHostKey(tc.key); got != tc.app {
			t.Errorf("IsAppHostKey(%s) = %v", tc.key, got)
		}
		if got := PortSibling(tc.key); got != tc.portKey {
			t.Errorf("PortSibling(%s) = %s, want %s", tc.key, got, tc.portKey)
		}
	}
}

// TestUserWordAndTCPUse: --host-var overrides a TCP wait the project
// shows (a script may be one that never runs), not a paste of the
// variable into a URL as HOST:PORT, which no directory fits.
func TestUserWordAndTCPUse(t *testing.T) {
	const doc = "services:\n  app:\n    image: example/app:1\n    command: [\"sh\", \"-c\", \"until nc -z $$DB_HOST 5432; do sleep 1; done; exec app\"]\n    environment:\n      DB_HOST: db\n    volumes:\n      - ./conf:/etc/app\n  db:\n    image: postgres:16\n"
	for _, tc := range []struct {
		name, conf string
		user       bool
		stay       bool
	}{
		{"a wait, no word", "", false, true},
		{"a wait, the user's word", "", true, false},
		{"a paste, the user's word", "URL = f'postgresql://app@{os.environ[\"DB_HOST\"]}:5432/app'\n", true, true},
		{"the host in ?host=, the user's word", "URL = f'postgresql://app@/app?host={os.environ[\"DB_HOST\"]}'\n", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "conf"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "conf", "app.conf"), []byte(tc.conf), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := compose.Load(context.Background(), []compose.Input{{Path: filepath.Join(dir, "compose.yml"), Data: []byte(doc)}}, compose.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			q := Query{Project: p, Scopes: NewScopes(p, p.ReadFile, func(string, error) {}), DB: "db", DBPort: 5432, MountPath: "/var/run/postgresql"}
			if tc.user {
				q.HostVars = []string{"app/DB_HOST"}
			}
			for _, v := range p.ServiceEnv("app") {
				if v.Key == "DB_HOST" {
					q.Var = v
				}
			}
			v, ok := q.HostVar("")
			if !ok || (v.Stay != nil) != tc.stay {
				t.Fatalf("HostVar = %+v, %v; want stay %v", v, ok, tc.stay)
			}
			if tc.stay && tc.user && !strings.Contains(v.Stay.Msg, "app/conf/app.conf:1") && !strings.Contains(v.Stay.Msg, "conf/app.conf:1") {
				t.Errorf("message names no file and line: %s", v.Stay.Msg)
			}
		})
	}
}
