package appserver

import (
	"strings"
	"testing"
)

const sock = "/run/app/app.sock"

func TestPlanArgs(t *testing.T) {
	for _, tc := range []struct {
		cmd, want string
		o         Options
	}{
		{"gunicorn -b 0.0.0.0:8000 app.wsgi:application", "gunicorn -b 0.0.0.0:8000 --bind unix:/run/app/app.sock --umask 0 app.wsgi:application", Options{}},
		{"python -m gunicorn --bind=0.0.0.0:8000 -w 4 app:app", "python -m gunicorn --bind=0.0.0.0:8000 --bind unix:/run/app/app.sock --umask 0 -w 4 app:app", Options{}},
		{"gunicorn --umask 007 -b :8000 app:app", "gunicorn --umask 007 -b :8000 --bind unix:/run/app/app.sock app:app", Options{}},
		{"gunicorn app:app", "gunicorn --bind 0.0.0.0:8000 --bind unix:/run/app/app.sock --umask 0 app:app", Options{Port: 8000}},
		{"gunicorn -b 0.0.0.0:8000 app:app", "gunicorn --bind unix:/run/app/app.sock --umask 0 app:app", Options{DropTCP: true, Port: 8000}},
		{"uvicorn main:app --host 0.0.0.0 --port 8000", "uvicorn main:app --host 0.0.0.0 --port 8000 --uds /run/app/app.sock", Options{}},
		{"bundle exec puma -b tcp://0.0.0.0:3000", "bundle exec puma -b tcp://0.0.0.0:3000 -b unix:///run/app/app.sock?umask=0000", Options{}},
		{"bundle exec puma -p 3000 -e production", "bundle exec puma -p 3000 -b unix:///run/app/app.sock?umask=0000 -e production", Options{}},
		{"bundle exec puma -p 3000", "bundle exec puma -b unix:///run/app/app.sock?umask=0000", Options{DropTCP: true, Port: 3000}},
		{"uwsgi --http :8000 --module app", "uwsgi --http :8000 --http-socket /run/app/app.sock --chmod-socket=666 --module app", Options{Protocol: "http"}},
		{"uwsgi --socket :3031 --module app", "uwsgi --socket :3031 --socket /run/app/app.sock --chmod-socket=666 --module app", Options{Protocol: "uwsgi"}},
		{"bundle exec unicorn -l 0.0.0.0:8080", "bundle exec unicorn -l 0.0.0.0:8080 -l /run/app/app.sock", Options{}},
		{"bundle exec unicorn", "bundle exec unicorn -l 0.0.0.0:8080 -l /run/app/app.sock", Options{Port: 8080}},
	} {
		args := strings.Fields(tc.cmd)
		tc.o.Socket = sock
		p, err := PlanArgs(args, tc.o)
		if err != nil {
			t.Errorf("%s: %v", tc.cmd, err)
			continue
		}
		got := strings.Join(Apply(args, p.Edits), " ")
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.cmd, got, tc.want)
		}
		if p.Permission == "" {
			t.Errorf("%s: no permission statement", tc.cmd)
		}
		// A second plan on the result is a no-op.
		p2, err := PlanArgs(strings.Fields(got), tc.o)
		if err != nil || !p2.Done || len(p2.Edits) > 0 {
			t.Errorf("%s: second plan %+v, %v; want Done", got, p2, err)
		}
	}
}

func TestPlanArgsNotes(t *testing.T) {
	p, _ := PlanArgs(strings.Fields("uvicorn main:app --port 8000"), Options{Socket: sock})
	if len(p.Notes) == 0 || !strings.Contains(p.Notes[0], "no longer listens on TCP") {
		t.Errorf("uvicorn notes = %q", p.Notes)
	}
	p, _ = PlanArgs(strings.Fields("bundle exec unicorn -c config/unicorn.rb -E production"), Options{Socket: sock})
	if p.ConfigFile != "config/unicorn.rb" || len(p.Edits) != 0 {
		t.Errorf("unicorn -c: %+v", p)
	}
	if _, err := PlanArgs(strings.Fields("node server.js"), Options{Socket: sock}); err != ErrUnknown {
		t.Errorf("node: err = %v", err)
	}
}

func TestSplit(t *testing.T) {
	s := `sh -c "gunicorn -b 0.0.0.0:8000 'app:create_app()'" x\ y`
	ws, err := Split(s)
	if err != nil {
		t.Fatal(err)
	}
	var texts, raws []string
	for _, w := range ws {
		texts = append(texts, w.Text)
		raws = append(raws, s[w.Start:w.End])
	}
	if got := strings.Join(texts, "|"); got != `sh|-c|gunicorn -b 0.0.0.0:8000 'app:create_app()'|x y` {
		t.Errorf("texts %s", got)
	}
	if got := strings.Join(raws, "|"); got != `sh|-c|"gunicorn -b 0.0.0.0:8000 'app:create_app()'"|x\ y` {
		t.Errorf("raws %s", got)
	}
	if _, err := Split(`a "b`); err == nil {
		t.Error("unterminated quote accepted")
	}
	if Quote("unix:///a?umask=0") != "'unix:///a?umask=0'" || Quote("--bind") != "--bind" {
		t.Error("Quote")
	}
}

func TestUnicornListen(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		port     int
		drop     bool
	}{
		{"worker_processes 4\nlisten \"0.0.0.0:8080\"\nstderr_path \"/dev/null\"\n", "worker_processes 4\nlisten \"0.0.0.0:8080\"\nlisten \"/run/app/app.sock\"\nstderr_path \"/dev/null\"\n", 8080, false},
		{"worker_processes 4\r\n  listen 8080, tcp_nopush: true\r\n", "worker_processes 4\r\n  listen 8080, tcp_nopush: true\r\n  listen \"/run/app/app.sock\"\r\n", 8080, false},
		{"listen \"0.0.0.0:8080\"", "listen \"0.0.0.0:8080\"\nlisten \"/run/app/app.sock\"", 0, false},
		{"worker_processes 2\n", "worker_processes 2\nlisten \"0.0.0.0:8080\"\nlisten \"/run/app/app.sock\"\n", 8080, false},
		{"listen \"0.0.0.0:8080\", backlog: 64\n", "listen \"/run/app/app.sock\", backlog: 64\n", 8080, true},
		{"# listen \"x\"\ntimeout 30\n", "# listen \"x\"\ntimeout 30\nlisten \"/run/app/app.sock\"\n", 0, false},
	} {
		out, done := UnicornListen([]byte(tc.in), sock, tc.port, tc.drop)
		if done || string(out) != tc.want {
			t.Errorf("UnicornListen(%q) = %q, %v; want %q", tc.in, out, done, tc.want)
		}
		again, done := UnicornListen(out, sock, tc.port, tc.drop)
		if !done || string(again) != string(out) {
			t.Errorf("second run on %q changed it: %q", out, again)
		}
	}
}

func TestNotesOnlyWhenBindAdded(t *testing.T) {
	p, _ := PlanArgs(strings.Fields("gunicorn -b 0.0.0.0:8000 app:app"), Options{Socket: sock, Port: 8000})
	if len(p.Notes) != 0 {
		t.Errorf("gunicorn with a bind: notes %q", p.Notes)
	}
	p, _ = PlanArgs(strings.Fields("gunicorn app:app"), Options{Socket: sock, Port: 8000})
	if len(p.Notes) != 1 {
		t.Errorf("gunicorn without a bind: notes %q", p.Notes)
	}
}
