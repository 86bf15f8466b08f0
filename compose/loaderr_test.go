package compose

import (
	"strings"
	"testing"
)

// TestHideValues: each compose-go message format that quotes a value loses
// the value, and keeps what says what is wrong.
func TestHideValues(t *testing.T) {
	cases := []struct{ msg, keep string }{
		{"invalid interpolation format for services.app.environment.URL.\nYou may need to escape any $ with another $.\npostgres://u:S3cret@db/${X",
			"You may need to escape any $ with another $. (value not shown)"},
		{"failed to read /p/app.env: line 3: unterminated quoted value \"S3cret", "line 3: unterminated quoted value (value not shown)"},
		{"/p/.env: Invalid template: \"S3cret${\"", "Invalid template: an unterminated ${ (value not shown)"},
		{"yaml: cannot construct !!str `S3cret` as a !!int", "cannot construct !!str `...` as a !!int"},
		{"bad value postgres://u:S3cret@db/x here", "postgres://u:****@db/x"},
	}
	for _, c := range cases {
		got := HideValues(c.msg)
		if strings.Contains(got, "S3cret") || !strings.Contains(got, c.keep) {
			t.Errorf("hideValues(%q) = %q, want it to keep %q and lose the password", c.msg, got, c.keep)
		}
	}
}
