package compose

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/uds-migrate/uds-migrate/finding"
)

// load loads one compose file written in a temporary directory.
func load(t *testing.T, doc string) *Project {
	t.Helper()
	p, err := Load(context.Background(), []Input{{Path: filepath.Join(t.TempDir(), "compose.yml"), Data: []byte(doc)}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEditorComposeConstructs: each compose-level operation makes exactly
// the edit a reviewer expects, in the file's own layout, and reports what
// it cannot do instead of guessing.
func TestEditorComposeConstructs(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		edit      func(e *Editor, p *Project)
		want      string
		codes     []string
	}{
		{
			name: "mount twice, new volumes: key and top-level section",
			doc:  "services:\n  app:\n    image: a\n  db:\n    image: postgres\n\nnetworks:\n  n: {}\n",
			edit: func(e *Editor, p *Project) {
				src, n := p.ServiceNode("app")
				e.AddMount(src, n, "app", "s:/run/pg:ro", "r")
				e.AddMount(src, n, "app", "s:/run/pg:ro", "r")
				e.EnsureTopVolume(src, "s")
				e.EnsureTopVolume(src, "s")
			},
			want: "services:\n  app:\n    image: a\n    volumes:\n      - s:/run/pg:ro\n  db:\n    image: postgres\n\nnetworks:\n  n: {}\n\nvolumes:\n  s:\n",
		},
		{
			name: "a merged anchor's list that only this service uses gets the entry",
			doc:  "x-v: &v\n  volumes: [d:/d]\nservices:\n  app:\n    <<: *v\n    image: a\n",
			edit: func(e *Editor, p *Project) {
				src, n := p.ServiceNode("app")
				e.AddMount(src, n, "app", "s:/s", "r")
			},
			want: "x-v: &v\n  volumes: [d:/d, s:/s]\nservices:\n  app:\n    <<: *v\n    image: a\n",
		},
		{
			name: "list from a merged anchor that a service without the mount shares is copied, the anchor left alone",
			doc:  "x-v: &v\n  volumes: [d:/d]\nservices:\n  app:\n    <<: *v\n    image: a\n  cache:\n    <<: *v\n    image: c\n",
			edit: func(e *Editor, p *Project) {
				defer e.Mounting(map[string]bool{"app": true})()
				src, n := p.ServiceNode("app")
				e.AddMount(src, n, "app", "s:/s", "r")
			},
			want: "x-v: &v\n  volumes: [d:/d]\nservices:\n  app:\n    <<: *v\n    image: a\n    volumes:\n      - d:/d\n      - s:/s\n  cache:\n    <<: *v\n    image: c\n",
		},
		{
			name: "an aliased list every user of which gets the mount is edited once",
			doc:  "x-v: &v\n  - d:/d\nservices:\n  app:\n    image: a\n    volumes: *v\n  job:\n    image: a\n    volumes: *v\n",
			edit: func(e *Editor, p *Project) {
				defer e.Mounting(map[string]bool{"app": true, "job": true})()
				for _, s := range []string{"app", "job"} {
					src, n := p.ServiceNode(s)
					e.AddMount(src, n, s, "s:/s", "r")
				}
			},
			want: "x-v: &v\n  - d:/d\n  - s:/s\nservices:\n  app:\n    image: a\n    volumes: *v\n  job:\n    image: a\n    volumes: *v\n",
		},
		{
			name: "an alias shared with a service without the mount becomes a list of its own",
			doc:  "x-v: &v\n  - d:/d\nservices:\n  app:\n    image: a\n    volumes: *v\n  docs:\n    image: d\n    volumes: *v\n",
			edit: func(e *Editor, p *Project) {
				defer e.Mounting(map[string]bool{"app": true})()
				src, n := p.ServiceNode("app")
				e.AddMount(src, n, "app", "s:/s", "r")
			},
			want: "x-v: &v\n  - d:/d\nservices:\n  app:\n    image: a\n    volumes:\n      - d:/d\n      - s:/s\n  docs:\n    image: d\n    volumes: *v\n",
		},
		{
			name: "long syntax from an anchor shared with a service without the mount: by hand",
			doc:  "x-v: &v\n  volumes:\n    - type: tmpfs\n      target: /d\nservices:\n  app:\n    <<: *v\n    image: a\n  cache:\n    <<: *v\n    image: c\n",
			edit: func(e *Editor, p *Project) {
				defer e.Mounting(map[string]bool{"app": true})()
				src, n := p.ServiceNode("app")
				e.AddMount(src, n, "app", "s:/s", "r")
			},
			want:  "x-v: &v\n  volumes:\n    - type: tmpfs\n      target: /d\nservices:\n  app:\n    <<: *v\n    image: a\n  cache:\n    <<: *v\n    image: c\n",
			codes: []string{"UDS111"},
		},
		{
			name: "remove the only mount and its declaration",
			doc:  "services:\n  app:\n    image: a\n    volumes:\n      - s:/s\n\nvolumes:\n  s:\n",
			edit: func(e *Editor, p *Project) {
				src, n := p.ServiceNode("app")
				_, ms := p.Mounts(src, n)
				e.RemoveMount("app", ms[0])
				e.RemoveTopVolumes(src, []string{"s"})
			},
			want: "services:\n  app:\n    image: a\n",
		},
		{
			name: "remove one of two flow items",
			doc:  "services:\n  app:\n    image: a\n    volumes: [d:/d, s:/s]\n",
			edit: func(e *Editor, p *Project) {
				src, n := p.ServiceNode("app")
				_, ms := p.Mounts(src, n)
				e.RemoveMount("app", ms[1])
			},
			want: "services:\n  app:\n    image: a\n    volumes: [d:/d]\n",
		},
		{
			name: "a variable after another, in list form",
			doc:  "services:\n  app:\n    image: a\n    environment:\n      - PGHOST=/run/pg\n      - B=1\n",
			edit: func(e *Editor, p *Project) {
				for _, v := range p.ServiceEnv("app") {
					if v.Key == "PGHOST" && !e.AddEnvAfter(v, "PGPORT", "5433", "r") {
						t.Error("AddEnvAfter refused")
					}
				}
			},
			want: "services:\n  app:\n    image: a\n    environment:\n      - PGHOST=/run/pg\n      - PGPORT=5433\n      - B=1\n",
		},
		{
			name: "a variable removed: the environment: key with it when it is the only entry, a list item among others, nothing where it is not exact",
			doc: "x-env: &env\n  H: /run/pg\nservices:\n  app:\n    image: a\n    environment:\n      H: /run/pg\n  list:\n    image: a\n    environment:\n      - A=1\n      - H=/run/pg\n" +
				"  flow:\n    image: a\n    environment: {H: /run/pg}\n  anchored:\n    image: a\n    environment: *env\n  multi:\n    image: a\n    environment:\n      H: >-\n        /run/pg\n",
			edit: func(e *Editor, p *Project) {
				for _, name := range []string{"app", "list", "flow", "anchored", "multi"} {
					for _, v := range p.ServiceEnv(name) {
						if v.Key != "H" {
							continue
						}
						removed := false
						for _, d := range p.ServiceDefs(name) {
							removed = removed || e.RemoveServiceEnv(d, v)
						}
						if want := name == "app" || name == "list"; removed != want {
							t.Errorf("%s: removed %v, want %v", name, removed, want)
						}
					}
				}
			},
			want: "x-env: &env\n  H: /run/pg\nservices:\n  app:\n    image: a\n  list:\n    image: a\n    environment:\n      - A=1\n" +
				"  flow:\n    image: a\n    environment: {H: /run/pg}\n  anchored:\n    image: a\n    environment: *env\n  multi:\n    image: a\n    environment:\n      H: >-\n        /run/pg\n",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := load(t, c.doc)
			var rep finding.Report
			e := NewEditor(p, &rep)
			c.edit(e, p)
			if err := e.Flush(); err != nil {
				t.Fatal(err)
			}
			files, err := e.Files()
			if err != nil {
				t.Fatal(err)
			}
			if got := string(files[0].After); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
			var codes []string
			for _, f := range rep.Findings {
				codes = append(codes, f.Code)
			}
			if len(codes) != len(c.codes) || (len(codes) > 0 && codes[0] != c.codes[0]) {
				t.Errorf("findings %v, want %v", codes, c.codes)
			}
			if _, err := NewEditor(load(t, string(files[0].After)), &finding.Report{}).Files(); err != nil {
				t.Errorf("output does not load: %v", err)
			}
		})
	}
}

// TestRemoveTopVolumesFlow: declarations go from a flow mapping with
// their separator, as the migration appended them.
func TestRemoveTopVolumesFlow(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"volumes: {pg-socket: {}}\n", "volumes: {}\n"},
		{"volumes: {data: {}, pg-socket: {}}\n", "volumes: {data: {}}\n"},
		{"volumes: {pg-socket: {}, data: {driver: local}}\n", "volumes: {data: {driver: local}}\n"},
		{"volumes: {a: {}, pg-socket: {}, b: {}, db-socket: {}}\n", "volumes: {a: {}, b: {}}\n"},
		{"volumes: {pg-socket: {}, db-socket: {}, a: {}}\n", "volumes: {a: {}}\n"},
		{"volumes: {data: null, pg-socket: {}}\n", "volumes: {data: null}\n"},
	} {
		p := load(t, "services: {}\n"+c.in)
		src := p.Sources[0]
		ed := NewEditor(p, &finding.Report{})
		ed.RemoveTopVolumes(src, []string{"pg-socket", "db-socket"})
		got, err := ed.YAML(src).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if want := "services: {}\n" + c.want; string(got) != want {
			t.Errorf("%q: got %q, want %q", c.in, got, want)
		}
	}
}
