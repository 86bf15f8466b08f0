package pgserver

import "testing"

func TestDir(t *testing.T) {
	for in, want := range map[string]string{
		"/var/run/postgresql":  "/run/postgresql",
		"/var/run/postgresql/": "/run/postgresql",
		"/run/postgresql":      "/run/postgresql",
		"/var/run":             "/run",
		"/var/runner/x":        "/var/runner/x",
		"/tmp":                 "/tmp",
	} {
		if got := Dir(in); got != want {
			t.Errorf("Dir(%q) = %q, want %q", in, got, want)
		}
	}
}
