package e2e

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// TestRailsBefore7 proves the "before" of the rails row's since
// (consumer/readers.yaml) with the real ActiveRecord that Debian ships
// (6.1): its ConnectionUrlResolver merges the URL's own parts over the
// query, so the localhost form resolves to host localhost (the app would
// dial TCP), and the empty form fails Ruby's URI parser. That is why a
// Rails whose manifests do not show 7.0 or later gets no socket URI.
func TestRailsBefore7(t *testing.T) {
	script := `require "active_record"
require "active_record/database_configurations"
require "active_record/database_configurations/connection_url_resolver"
puts ActiveRecord::VERSION::STRING
r = ActiveRecord::DatabaseConfigurations::ConnectionUrlResolver
puts r.new("postgres://app:pw@localhost/app?host=/var/run/postgresql").to_hash[:host]
begin
  r.new("postgres://app:pw@/app?host=/var/run/postgresql").to_hash
  puts "parsed"
rescue URI::InvalidURIError
  puts "InvalidURIError"
end
`
	out, err := exec.Command("ruby", "-e", script).CombinedOutput()
	if err != nil {
		if pgtest.Required() {
			t.Fatalf("ruby-activerecord missing under CI (apt-get install ruby-activerecord): %v\n%s", err, out)
		}
		t.Skipf("skipping: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if !strings.HasPrefix(lines[0], "6.") {
		t.Skipf("activerecord %s is not before 7.0: nothing to prove here", lines[0])
	}
	if lines[1] != "localhost" {
		t.Errorf("activerecord %s: localhost form resolves to host %q, want localhost (the URL's part over ?host=)", lines[0], lines[1])
	}
	if lines[2] != "InvalidURIError" {
		t.Errorf("activerecord %s: empty form: %s, want URI::InvalidURIError", lines[0], lines[2])
	}
}
