package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// A roundTripLoss is what a migration loses for good, so that revert
// cannot write the input's bytes back (README, revert): the test compares
// both sides after normalize, which removes exactly that difference.
type roundTripLoss struct {
	why       string
	normalize func(path, text string) string
}

// replaceAll normalizes by a regular expression over every file.
func replaceAll(re, with string) func(string, string) string {
	r := regexp.MustCompile(re)
	return func(_, text string) string { return r.ReplaceAllString(text, with) }
}

// Losses the migration documents, each with its reason.
var (
	// The socket form has no TLS: sslmode (JDBC, libpq, Npgsql's SSL Mode,
	// PGSSLMODE) is dropped or written disable (UDS104), and revert cannot
	// know what it was (UDS174).
	lossSSLMode = roundTripLoss{"the socket form's sslmode replaces the value's (UDS104); revert cannot know the old one (UDS174)",
		chain(replaceAll(`(?m)^.*PGSSLMODE.*$`, ""), replaceAll(`(?i)(ssl ?mode)=[a-z-]*[&;]?`, ""), replaceAll(`[?&;]("|'|\s|,|$)`, "$1"))}
	// A URL that left out the default port: its socket form names no port
	// either, so revert writes the server's port explicitly.
	lossDefaultPort = roundTripLoss{"a URL without a port and one with :5432 have the same socket form; revert writes the port",
		replaceAll(`(?m)(@[A-Za-z0-9_.-]+):5432(/|\?|$)`, "$1$2")}
	// ${VAR:-default} in the host or port position is gone from the socket
	// form (UDS164): revert writes what it stood for.
	lossHostRef = roundTripLoss{"a ${VAR:-default} in the host or port position is gone from the socket form (UDS164); revert writes its value",
		replaceAll(`\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}`, "$1")}
	// ${VAR} with no default in the host or port position is gone from the
	// socket form too (UDS164): revert writes the value it had.
	lossPlainHostRef = roundTripLoss{"a ${VAR} in the host or port position is gone from the socket form (UDS164); revert writes the value it stood for",
		replaceAll(`@[^@/\s]+:[^@/\s]+/`, "@HOST:PORT/")}
	// Quotes the migration added around an env file value (the socket form
	// needs them: $FactoryArg, spaces) stay: the value reads the same.
	lossEnvQuotes = roundTripLoss{"quotes the socket form needed in an env file stay; the value reads the same",
		func(path, text string) string {
			if strings.HasSuffix(path, ".yml") || strings.HasSuffix(path, ".yaml") {
				return text
			}
			return regexp.MustCompile(`(?m)^(\x{feff}?[A-Za-z_][A-Za-z0-9_]*=)(['"])(.*)['"]\r?$`).ReplaceAllString(text, "$1$3")
		}}
	// A variable the migration added beside a host (the port for PGHOST,
	// a host variable the input left unset): revert cannot tell it from one
	// the user wrote, and its TCP value reaches the same server.
	lossAddedVar = func(key string) roundTripLoss {
		return roundTripLoss{"the migration added " + key + "; revert keeps it with its TCP value (the same server)",
			replaceAll(`(?m)^\s*-?\s*`+key+`\s*[:=].*\n`, "")}
	}
	// The input set a host variable to what the image falls back to when
	// it is unset (the catalogue's default names the database): revert
	// cannot tell it from one the migration added for an unset host
	// (UDS150), and removes it; the image then falls back to the same host.
	lossDefaultSet = func(key string) roundTripLoss {
		return roundTripLoss{"the input set " + key + " to the image's default; revert removes it, and the image falls back to the same host",
			replaceAll(`(?m)^\s*-?\s*`+key+`\s*[:=]\s*db\n`, "")}
	}
	// A socket setup the input had broken, which the migration repaired
	// (UDS108 a read-only server socket mount, UDS112 a single
	// $FactoryArg, a socket file where the directory goes): revert keeps
	// the repair, and normalize undoes it on both sides.
	lossRepair = func(what string, normalize func(string, string) string) roundTripLoss {
		return roundTripLoss{"the migration repaired " + what + " of the input's own socket setup; revert keeps the repair", normalize}
	}
	// The tmpfs the input had on a server's socket directory: the socket
	// volume replaced it (UDS108), and revert removes the volume only.
	lossTmpfs = roundTripLoss{"the tmpfs on the server's socket directory was replaced by the socket volume; revert does not add it back",
		chain(replaceAll(`(?m)^ *- (type: tmpfs\n *target: )?/(var/)?run/postgresql\n`, ""))}
	// An anchored volumes: list shared with services that do not get the
	// socket: the migration gave the client a list of its own (a service
	// inheriting one through <<, the same), which revert leaves with the
	// socket entry removed.
	lossAnchorCopy = func(copied, anchored string) roundTripLoss {
		return roundTripLoss{"a client's copy of an anchored volumes: list stays, without the socket entry",
			func(_, text string) string { return strings.ReplaceAll(text, copied, anchored) }}
	}
	// ${VAR} references (no default) in the host and port position of an
	// env file's value are gone from the socket form (UDS164): revert
	// writes what they stood for.
	lossRefs = func(refs, value string) roundTripLoss {
		return roundTripLoss{refs + " in the host and port position is gone from the socket form (UDS164); revert writes " + value,
			func(_, text string) string { return strings.ReplaceAll(text, refs, value) }}
	}
	// The host comes back as the database's service name, not the alias or
	// the value of a variable the input used.
	lossHostName = func(from, to string) roundTripLoss {
		return roundTripLoss{"the host comes back as the database's service name " + to + ", not " + from,
			func(_, text string) string { return strings.ReplaceAll(text, from, to) }}
	}
)

// repairedFactoryArgMount undoes the repairs of a half-migrated JDBC
// setup: $$FactoryArg for compose, the server's socket mount writable.
var repairedFactoryArgMount = chain(replaceAll(`\$\$FactoryArg`, "$$FactoryArg"), replaceAll(`:/var/run/postgresql:ro\n`, ":/var/run/postgresql\n"))

// chain applies normalizers in order.
func chain(fs ...func(string, string) string) func(string, string) string {
	return func(path, text string) string {
		for _, f := range fs {
			text = f(path, text)
		}
		return text
	}
}

// roundTripLosses are the goldens whose revert cannot be byte-identical,
// with what is lost; every other golden whose migration edits something
// must come back byte for byte.
var roundTripLosses = map[string][]roundTripLoss{
	"05-interpolated-jdbc.txtar":               {lossHostRef},
	"07-jdbc-sslmode.txtar":                    {lossSSLMode},
	"10-alias-container-name.txtar":            {lossHostName("pg-main", "postgres"), lossHostName("//database:", "//postgres:")},
	"17-sslmode-by-driver.txtar":               {lossSSLMode},
	"22-known-images.txtar":                    {lossDefaultPort},
	"trial19-14-nodepg-imported-host.txtar":    {lossHostName("DB_HOST: db-server", "DB_HOST: postgres")},
	"bom.txtar":                                {lossEnvQuotes},
	"catalog-apps.txtar":                       {lossDefaultPort},
	"catalog-file-gatus-variants.txtar":        {lossDefaultPort},
	"catalog-file-pretalx.txtar":               {lossHostName("pretalx-db", "db")},
	"catalog-coder.txtar":                      {lossDefaultPort},
	"catalog-default-host-empty.txtar":         {lossDefaultSet("DB_HOST")},
	"catalog-librephotos.txtar":                {lossDefaultSet("DB_HOST")},
	"catalog-manyfold.txtar":                   {lossDefaultPort},
	"dotenv-follow.txtar":                      {lossEnvQuotes},
	"env-file.txtar":                           {lossEnvQuotes},
	"host-port-beside-host.txtar":              {lossAddedVar("PGPORT")},
	"ignore-quiet.txtar":                       {lossSSLMode},
	"pgsslmode-passthrough.txtar":              {lossSSLMode},
	"plan.txtar":                               {lossSSLMode},
	"revert-sslmode.txtar":                     {lossSSLMode},
	"rw-airflow.txtar":                         {lossDefaultPort},
	"rw-nodepg.txtar":                          {lossAddedVar("PGPORT")},
	"rw-quarkus.txtar":                         {lossHostRef},
	"hostvar-feeds-env-url.txtar":              {lossPlainHostRef},
	"encode-databases.txtar":                   {lossDefaultPort},
	"trial7-19-fastapi-unused-databases.txtar": {lossDefaultPort},
	"rw-rails.txtar":                           {lossDefaultPort},
	"trial-19-dropped-refs-variant.txtar":      {lossHostRef},
	"trial-19-interp-override.txtar":           {lossHostName("${DB_HOST:-db}", "reporting-db")},
	"trial-26-bad-value.txtar":                 {lossSSLMode},
	"trial3-04-npgsql-sslmode.txtar": {lossSSLMode, lossRepair("the client half of a socket setup whose server mounts nothing (v/: h), which the migration completed, so revert takes it back to TCP,",
		chain(replaceAll(`Host=[^;\n]*;Database=app;Username=h`, "Host=?;Database=app;Username=h"), replaceAll(`(?m)^    volumes:\n      - db-socket:/var/run/postgresql:ro\n`, ""), replaceAll(`(?m)^volumes:\n  db-socket:\n`, "")))},
	"trial3-07-revert-dialects.txtar":    {lossEnvQuotes},
	"trial8-10-appflowy.txtar":           {lossRefs("${POSTGRES_HOST}:${POSTGRES_PORT}", "postgres:5432")},
	"trial8-11-unleash-ssl.txtar":        {lossDefaultPort, lossSSLMode},
	"npgsql-grammar.txtar":               {lossHostName(`Host="db"`, "Host=db"), lossHostName("Host=db:5433;Port=5432", "Host=db;Port=5433")},
	"formats.txtar":                      {lossRepair("the read-only server mount and a single $FactoryArg", repairedFactoryArgMount)},
	"12-half-migrated-bind-mount.txtar":  {lossRepair("the read-only server mount and a single $FactoryArg", repairedFactoryArgMount)},
	"12-half-migrated-long-syntax.txtar": {lossRepair("the read-only server mount", replaceAll(`read_only: (true|false)`, "read_only: ?"))},
	"18-host-values-validate.txtar":      {lossRepair("DB_HOST and PGHOST naming the socket file where libpq takes the directory", replaceAll(`(DB_HOST|PGHOST): (/var/run/postgresql/\.s\.PGSQL\.5432|db)\n`, "$1: ?\n"))},
	"flags-security.txtar":               {{"--auth-local added POSTGRES_INITDB_ARGS (socket logins need a password); revert keeps it: TCP logins do not read it", replaceAll(`(?m)^ *POSTGRES_INITDB_ARGS: --auth-local=scram-sha-256\n`, "")}},
	"review-flags.txtar":                 {lossDefaultPort},
	"15-socket-dir-spellings.txtar":      {lossDefaultPort},
	"comments.txtar":                     {lossDefaultPort},
	"diff-minimal.txtar":                 {lossDefaultPort},
	"consumer-sqlx.txtar":                {lossDefaultPort},
	"trial-29-no-socket-variants.txtar":  {lossDefaultPort},
	"14-network-scoped-names.txtar":      {lossHostName("batch:pw@db:", "batch:pw@reporting:")},
	"hostname-domainname.txtar":          {lossHostName("@pg-primary:", "@db:")},
	"network-names.txtar":                {lossHostName("@history/", "@archive:5432/")},
	"layout-run-symlink.txtar":           {lossDefaultPort, lossTmpfs},
	"rw-hardened.txtar":                  {lossDefaultPort, lossTmpfs},
	"rw-postgis-build.txtar":             {lossDefaultPort, lossSSLMode},
	"trial3-08-pgsslmode-tcp.txtar":      {lossSSLMode},
	"layout-anchor-volumes.txtar": {lossDefaultPort, lossAnchorCopy("    volumes:\n      - ./static:/static:ro\n", "    volumes: *static\n"),
		lossAnchorCopy("      MODE: report\n    volumes:\n      - ./uploads:/uploads\n", "      MODE: report\n")},
	// Revert removes a host variable whose service falls back to the same
	// server without it (the image's catalogued default, a code default):
	// what the migration adds for an unset one, byte for byte; one written
	// by hand with that default's value goes too.
	"rw-immich.txtar": {{"DB_HOSTNAME: database, written by hand, is the image's own default (catalog immich default:), so revert removes it as it removes the one the migration adds for an unset DB_HOSTNAME",
		replaceAll(`(?m)^    environment:\n      DB_HOSTNAME: database\n`, "")}},
	"config-files.txtar": {{"a .properties value continued over lines is written back on one line (the same value)", replaceAll(`\\\n\s*`, "")}},
}

// TestRevertRoundTrip is the property of revert over the goldens: for
// every compose file of every golden archive (at its root and in its
// sub-projects, the expected outputs in want/ left out) whose migration
// edits something, revert of the migrated project gives back what revert
// of the input gives (the input itself, unless it already had socket
// values of its own), byte for byte in every file: compose files, env
// files, configuration files, documents in block scalars and flow
// mappings. roundTripLosses names the goldens where the migration loses
// something for good, and what. The nginx → app server migration is not
// reverted (README), so a golden that makes it is left out.
func TestRevertRoundTrip(t *testing.T) {
	archives, err := filepath.Glob("../../testdata/script/*/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	checked, used := 0, map[string]bool{}
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(a)
		for _, f := range ar.Files {
			if !composeNameRE.MatchString(path.Base(f.Name)) || strings.HasPrefix(f.Name, "want/") {
				continue
			}
			base, got := writeProject(t, ar), writeProject(t, ar)
			who := name + " " + f.Name
			if proxyMigration(t, filepath.Join(got, f.Name)) {
				continue
			}
			migrate, project := goldenFlags(ar.Comment)
			var out, errb bytes.Buffer
			if code := run(slices.Concat([]string{"uds-migrate", "-w", "-q"}, migrate, project, []string{filepath.Join(got, f.Name)}), &out, &errb); code == 2 || !differs(t, base, got) {
				continue // refused, or nothing to migrate
			}
			errb.Reset()
			if code := run(slices.Concat([]string{"uds-migrate", "revert", "-w", "-q"}, project, []string{filepath.Join(got, f.Name)}), &out, &errb); code != 0 {
				t.Errorf("%s: revert of the migrated project fails (exit %d): %s", who, code, errb.String())
				continue
			}
			// The input's own socket values go back to TCP too.
			run(slices.Concat([]string{"uds-migrate", "revert", "-w", "-q"}, project, []string{filepath.Join(base, f.Name)}), &out, &errb)
			checked++
			losses, exact := roundTripLosses[name], true
			for _, rel := range treeFiles(t, base, got) {
				want, _ := os.ReadFile(filepath.Join(base, rel))
				have, _ := os.ReadFile(filepath.Join(got, rel))
				if bytes.Equal(want, have) {
					continue
				}
				exact = false
				w, h := string(want), string(have)
				for _, l := range losses {
					w, h = l.normalize(rel, w), l.normalize(rel, h)
				}
				if w != h {
					t.Errorf("%s: revert does not give back %s:\n--- want\n%s\n--- got\n%s", who, rel, want, have)
				}
			}
			if losses != nil {
				used[name] = used[name] || !exact
			}
		}
	}
	for name := range roundTripLosses {
		if !used[name] {
			t.Errorf("%s is listed in roundTripLosses, but its revert is byte-identical (or it no longer migrates): drop it from the list", name)
		}
	}
	t.Logf("%d migrations round-tripped", checked)
	if checked < 80 {
		t.Errorf("only %d migrations round-tripped over the goldens: the property checks too little", checked)
	}
}

// migrateExecRE is a golden's first migration (or plan) command, and
// flagRE a flag of it that shapes the migration: the golden's own run,
// not the default one, is what revert has to undo.
var (
	migrateExecRE = regexp.MustCompile(`(?m)^!? *exec uds-migrate( .*)$`)
	flagRE        = regexp.MustCompile(`(--(?:consumer|host-var|db|socket-dir|volume|mount-path|bind-mount|jdbc-factory|only|exclude|auth-local))[ =](\S+)`)
	subcommandRE  = regexp.MustCompile(`^ (validate|revert|explain|bench|completion|man)\b`)
)

// goldenFlags returns the flags of a golden script's first migration:
// those of the migration, and the project flags revert takes too (--db,
// --socket-dir).
func goldenFlags(script []byte) (migrate, project []string) {
	for _, m := range migrateExecRE.FindAllStringSubmatch(string(script), -1) {
		if subcommandRE.MatchString(m[1]) {
			continue
		}
		for _, f := range flagRE.FindAllStringSubmatch(m[1], -1) {
			if f[1] == "--db" || f[1] == "--socket-dir" {
				project = append(project, f[1], f[2])
			} else {
				migrate = append(migrate, f[1], f[2])
			}
		}
		return migrate, project
	}
	return nil, nil
}

// writeProject writes an archive's files into a new folder, without its
// expected outputs (want/): they are no part of the project.
func writeProject(t *testing.T, ar *txtar.Archive) string {
	dir := t.TempDir()
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// proxyMigration reports whether the migration of compose file c makes
// the nginx → app server migration, which revert leaves (README).
func proxyMigration(t *testing.T, c string) bool {
	var out, errb bytes.Buffer
	run([]string{"uds-migrate", "plan", "--format", "json", c}, &out, &errb)
	var plan struct {
		Changes []struct{ Kind, Dialect string }
	}
	if json.Unmarshal(out.Bytes(), &plan) != nil {
		return false
	}
	for _, ch := range plan.Changes {
		if ch.Kind == "value" && !slices.Contains(dbDialects, ch.Dialect) {
			return true
		}
	}
	return false
}

// treeFiles lists the files of two folders, relative, sorted.
func treeFiles(t *testing.T, dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(d, p)
			if !slices.Contains(out, rel) {
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// differs reports whether any file of two project folders differs.
func differs(t *testing.T, a, b string) bool {
	for _, rel := range treeFiles(t, a, b) {
		x, _ := os.ReadFile(filepath.Join(a, rel))
		y, _ := os.ReadFile(filepath.Join(b, rel))
		if !bytes.Equal(x, y) {
			return true
		}
	}
	return false
}
