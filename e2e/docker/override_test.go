package dockere2e

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// overrideName is the override file the tests add beside compose.yml.
const overrideName = "compose.engine-test.yml"

// server is what a scenario adds to a database service: environment (the
// password the official image insists on, the user and database the
// clients name) and extra databases, created by an init script the way
// users do (/docker-entrypoint-initdb.d).
type server struct {
	env       map[string]string
	databases []string
	// tmpfs are directories the server's configuration names that the
	// image lacks (mounted as tmpfs, mode 1777).
	tmpfs []string
}

// client replaces a service's command by udsprobe runs.
type client struct {
	// env is added to the service (e.g. a user for a JDBC URL without one).
	env map[string]string
	// probes are udsprobe argument lists, run one after the other.
	probes [][]string
	// want holds, for each probe in order, a substring of its result line.
	want []string
	// readOnly is a mount destination that must be read-only.
	readOnly string
	// daemon: the probe serves (udsprobe serve) and is not waited for.
	daemon bool
}

// q quotes s for YAML (a JSON string is a YAML flow scalar).
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// renderOverride writes the override: clients run the probes, servers get
// their environment and init script, every service loses its published
// ports (containers talk only to each other), and built services run the
// client image instead.
func renderOverride(tag string, services map[string]composeService, servers map[string]server, clients map[string]client) string {
	var b strings.Builder
	b.WriteString("# Written by the engine tests (e2e/docker).\nservices:\n")
	for _, name := range sortedKeys(services) {
		s, isServer := servers[name]
		c, isClient := clients[name]
		svc := services[name]
		if !isServer && !isClient && !set(svc.Ports) && !set(svc.Build) {
			// Untouched (a service from an include: file cannot be overridden).
			continue
		}
		fmt.Fprintf(&b, "  %s:\n", q(name))
		if set(svc.Ports) {
			b.WriteString("    ports: !reset []\n")
		}
		if set(svc.Build) {
			fmt.Fprintf(&b, "    build: !reset null\n    image: %s\n", q("uds-migrate/client:"+tag))
		}
		if isServer {
			writeEnv(&b, s.env)
			if len(s.tmpfs) > 0 {
				b.WriteString("    tmpfs:\n")
				for _, d := range s.tmpfs {
					fmt.Fprintf(&b, "      - %s\n", q(d))
				}
			}
			if len(s.databases) > 0 {
				fmt.Fprintf(&b, "    volumes:\n      - %s\n", q("./"+initScript(name)+":/docker-entrypoint-initdb.d/uds-engine-test.sql:ro"))
			}
		}
		if isClient {
			var runs []string
			for _, p := range c.probes {
				runs = append(runs, "udsprobe "+strings.Join(p, " "))
			}
			fmt.Fprintf(&b, "    restart: \"no\"\n    entrypoint: [\"/bin/sh\", \"-c\"]\n    command: [%s]\n", q(strings.Join(runs, "; ")))
			writeEnv(&b, c.env)
		}
	}
	return b.String()
}

// initScript is the file name of server's init SQL in the project folder.
func initScript(service string) string { return "uds-engine-test-" + service + ".sql" }

func initSQL(databases []string) string {
	var b strings.Builder
	for _, d := range databases {
		fmt.Fprintf(&b, "CREATE DATABASE %q;\n", d)
	}
	return b.String()
}

func writeEnv(b *strings.Builder, env map[string]string) {
	if len(env) == 0 {
		return
	}
	b.WriteString("    environment:\n")
	for _, k := range sortedKeys(env) {
		fmt.Fprintf(b, "      %s: %s\n", k, q(env[k]))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
