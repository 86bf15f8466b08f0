package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// debianCrates is where Debian's librust-*-dev packages keep their
// sources, as a cargo directory source.
const debianCrates = "/usr/share/cargo/registry"

// TestRustURLCrate checks the rows rust-url, url-set-query and sqlx of
// consumer/readers.yaml against the real url crate (Debian's
// librust-url-dev, built offline): Url::parse takes the forms rust-url
// lists and refuses the others, and set_query, as Lemmy calls it,
// leaves no ?host= in any form that parses, so url-set-query lists none.
// The url crate opens no connection, so no server is needed: what is
// checked is which strings reach the driver.
func TestRustURLCrate(t *testing.T) {
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		if home, _ := os.UserHomeDir(); home != "" {
			if p := filepath.Join(home, ".cargo", "bin", "cargo"); fileExists(p) {
				cargo, err = p, nil
			}
		}
	}
	if err == nil && !hasCrate("url") {
		err = os.ErrNotExist
	}
	if err != nil {
		if pgtest.Required() {
			t.Fatalf("cargo or Debian's librust-url-dev missing under CI (apt-get install librust-url-dev): %v", err)
		}
		t.Skipf("skipping: cargo or librust-url-dev missing: %v", err)
	}
	dir := t.TempDir()
	for _, f := range []string{"Cargo.toml", "src/main.rs"} {
		data, err := os.ReadFile(filepath.Join("testdata/rusturl", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := "[source.crates-io]\nreplace-with = \"debian\"\n[source.debian]\ndirectory = \"" + debianCrates + "\"\n[net]\noffline = true\n"
	if err := os.MkdirAll(filepath.Join(dir, ".cargo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".cargo", "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command(cargo, "build", "-q", "--offline")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cargo build: %v\n%s", err, out)
	}
	lock, err := os.ReadFile(filepath.Join(dir, "Cargo.lock"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`name = "url"\nversion = "([^"]+)"`).FindSubmatch(lock)
	if m == nil {
		t.Fatal("Cargo.lock names no url version")
	}
	t.Logf("url %s", m[1])

	const src = "postgres://lemmy:password@db:5432/lemmy"
	forms := map[consumer.Form]string{}
	empty, _, err := libpq.URIToSocket(src, "/var/run/postgresql", libpq.DefaultPort)
	if err != nil {
		t.Fatal(err)
	}
	local, err := libpq.WithAuthorityHost(empty, "localhost")
	if err != nil {
		t.Fatal(err)
	}
	forms[consumer.Empty], forms[consumer.Localhost] = empty, local
	forms[consumer.Encoded] = "postgres://lemmy:password@%2Fvar%2Frun%2Fpostgresql/lemmy"
	order := []consumer.Form{consumer.Empty, consumer.Localhost, consumer.Encoded}
	var in bytes.Buffer
	in.WriteString(src + "\n")
	for _, f := range order {
		in.WriteString(forms[f] + "\n")
	}
	run := exec.Command(filepath.Join(dir, "target", "debug", "rusturl-probe"))
	run.Stdin = &in
	out, err := run.Output()
	if err != nil {
		t.Fatalf("probe: %v", err)
	}
	type result struct {
		OK       bool   `json:"ok"`
		Error    string `json:"error"`
		Parsed   string `json:"parsed"`
		SetQuery string `json:"set_query"`
		// Host is host_str(), QueryHost the last host= value.
		Host      string `json:"host"`
		QueryHost string `json:"query_host"`
	}
	var res []result
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("probe line %q: %v", sc.Text(), err)
		}
		res = append(res, r)
	}
	if len(res) != 1+len(order) {
		t.Fatalf("%d results for %d URIs", len(res), 1+len(order))
	}
	if !res[0].OK {
		t.Fatalf("the TCP URL %s: %s; the probe must parse it", src, res[0].Error)
	}
	parse, replace := consumer.ByName("rust-url"), consumer.ByName("url-set-query")
	for i, f := range order {
		r := res[1+i]
		if r.OK != parse.Accepts(f) {
			t.Errorf("%s form %s: parsed %v (%s); readers.yaml rust-url says %v", f, forms[f], r.OK, r.Error, parse.Accepts(f))
		}
		if !r.OK && !strings.Contains(r.Error, "empty host") {
			t.Errorf("%s form: error %q, want the empty host refusal the row cites", f, r.Error)
		}
		if r.OK && strings.Contains(r.Parsed, "?host=") != strings.Contains(forms[f], "?host=") {
			t.Errorf("%s form: parse changed the query: %s", f, r.Parsed)
		}
		// After set_query the driver sees no ?host=: only a form whose
		// authority holds the directory still names the socket.
		if r.OK && strings.Contains(r.SetQuery, "host=") {
			t.Errorf("%s form: set_query kept host=: %s", f, r.SetQuery)
		}
		if replace.Accepts(f) {
			t.Errorf("readers.yaml url-set-query accepts the %s form, which the tool writes and set_query breaks", f)
		}
		t.Logf("%s form: ok=%v %s%s -> %s", f, r.OK, r.Error, r.Parsed, r.SetQuery)
	}
	// sqlx parses with this crate first (PgConnectOptions::from_str,
	// sqlx-postgres/src/options/parse.rs:173-180), then takes a socket
	// directory from a host= value, or an authority host that
	// percent-decodes to one, starting with / (:12-17, :69-74). sqlx itself
	// is not built here (crates.io is out of reach): what is checked is
	// that the forms its row lists survive that parse with the directory
	// where sqlx looks, and that the ones it omits do not.
	sqlx := consumer.ByName("sqlx")
	for i, f := range order {
		r := res[1+i]
		host, _ := url.PathUnescape(r.Host)
		socket := r.OK && (strings.HasPrefix(r.QueryHost, "/var/run/postgresql") || strings.HasPrefix(host, "/var/run/postgresql"))
		if socket != sqlx.Accepts(f) {
			t.Errorf("sqlx, %s form %s: parsed %v (%s), host %q, host= %q; readers.yaml sqlx says %v", f, forms[f], r.OK, r.Error, r.Host, r.QueryHost, sqlx.Accepts(f))
		}
	}
	if r := res[1+2]; !r.OK || !strings.Contains(r.SetQuery, "@%2Fvar%2Frun%2Fpostgresql/") {
		t.Errorf("encoded form: %+v; the row's reason says a percent-encoded host survives set_query", r)
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// hasCrate reports whether Debian's crate directory holds a version of
// name.
func hasCrate(name string) bool {
	m, _ := filepath.Glob(filepath.Join(debianCrates, name+"-[0-9]*"))
	return len(m) > 0
}
