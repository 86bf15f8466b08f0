package dockere2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nameCase is one client of TestNameResolution: the host name its URL
// carries and the networks it joins.
type nameCase struct {
	client, host string
	networks     []string // nil: the default network
	links        []string
}

// TestNameResolution checks rewrite's model of Docker name resolution
// (rewrite/names.go) against a real engine: for every client, the tool
// migrates the URL exactly when the client's container resolves the host
// name. It covers the service name, container_name, hostname (an alias the
// engine adds, moby/moby#39204), hostname.domainname (not answered), a
// network alias on its own network and outside it, links, and a network
// the server is not on.
func TestNameResolution(t *testing.T) {
	needEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	p := newProject(t, dir)
	container := p.name + "-pg"
	cases := []nameCase{
		{client: "by-service", host: "db"},
		{client: "by-container-name", host: container},
		{client: "by-hostname", host: "dbhost"},
		{client: "by-fqdn", host: "dbhost.example.internal"},
		{client: "by-alias", host: "backdb", networks: []string{"back"}},
		{client: "by-alias-elsewhere", host: "backdb"},
		{client: "by-link", host: "legacydb", links: []string{"db:legacydb"}},
		{client: "other-network", host: "db", networks: []string{"isolated"}},
	}
	writeFile(t, filepath.Join(dir, "compose.yml"), []byte(namesCompose(container, cases)))
	// The clients' image shows no reader of DATABASE_URL, and a URI whose
	// reader is unknown is never edited (#20): name it, as a user would.
	p.tagServices(ctx, t)

	stdout, stderr, err := p.tool(ctx, "plan", "--format", "json", "--consumer", "DATABASE_URL=pgx", "compose.yml")
	if err != nil {
		t.Fatalf("uds-migrate plan: %v\n%s", err, stderr)
	}
	migrated, err := migratedServices(stdout)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.compose(ctx, "up", "-d"); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		_, err := p.compose(ctx, "exec", "-T", c.client, "getent", "hosts", c.host)
		resolves := err == nil
		if resolves != migrated[c.client] {
			t.Errorf("%s: the engine resolves %q: %v; the tool migrates its URL: %v", c.client, c.host, resolves, migrated[c.client])
		}
	}
	// The table above must hold both answers, or it proves nothing.
	var yes, no int
	for _, c := range cases {
		if migrated[c.client] {
			yes++
		} else {
			no++
		}
	}
	if yes == 0 || no == 0 {
		t.Errorf("the tool migrated %d of %d clients: the check needs both kinds", yes, len(cases))
	}
}

// namesCompose is the project of TestNameResolution: one PostgreSQL
// server carrying every kind of name, and one client per case.
func namesCompose(container string, cases []nameCase) string {
	var b strings.Builder
	fmt.Fprintf(&b, `services:
  db:
    image: postgres:16
    container_name: %s
    hostname: dbhost
    domainname: example.internal
    environment:
      POSTGRES_PASSWORD: names-test
    networks:
      default: {}
      back:
        aliases: [backdb]
`, container)
	for _, c := range cases {
		fmt.Fprintf(&b, "  %s:\n    image: udsm-names/app:1\n    entrypoint: [sleep, \"600\"]\n", c.client)
		fmt.Fprintf(&b, "    environment:\n      DATABASE_URL: postgresql://app@%s:5432/app\n", c.host)
		if c.networks != nil {
			fmt.Fprintf(&b, "    networks: [%s]\n", strings.Join(c.networks, ", "))
		}
		if c.links != nil {
			fmt.Fprintf(&b, "    links: [%q]\n", strings.Join(c.links, `", "`))
		}
	}
	b.WriteString("networks:\n  back: {}\n  isolated: {}\n")
	return b.String()
}

// migratedServices lists the services whose connection value the plan
// changes.
func migratedServices(planJSON string) (map[string]bool, error) {
	var plan struct {
		Changes []struct {
			Kind    string `json:"kind"`
			Service string `json:"service"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(planJSON), &plan); err != nil {
		return nil, fmt.Errorf("plan JSON: %v", err)
	}
	out := map[string]bool{}
	for _, c := range plan.Changes {
		if c.Kind == "value" {
			out[c.Service] = true
		}
	}
	return out, nil
}
