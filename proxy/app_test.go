package proxy

import "testing"

// TestNamesProgram: a published image's command: names a program only
// when the tool can read it as one; flags and bare words are arguments for
// the image's own entrypoint (trial 8 M5, PowerSync's start -r unified).
func TestNamesProgram(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  bool
	}{
		{[]string{"start", "-r", "unified"}, false},
		{[]string{"server", "standalone"}, false},
		{[]string{"-m", "8222"}, false},
		{nil, false},
		{[]string{""}, false},
		{[]string{"node", "server.js"}, true},
		{[]string{"python3.12", "-m", "gunicorn"}, true},
		{[]string{"./bin/serve"}, true},
		{[]string{"/usr/local/bin/app"}, true},
		{[]string{"docker-entrypoint.sh", "serve"}, true},
		{[]string{"npm", "run", "start"}, true},
		{[]string{"gunicorn", "app:app"}, true},
		{[]string{"sh", "-c", "exec app"}, true},
		{[]string{"nodemon"}, false}, // a launcher the tool does not know: no advice about it
	} {
		if got := namesProgram(c.words); got != c.want {
			t.Errorf("namesProgram(%q) = %v, want %v", c.words, got, c.want)
		}
	}
}
