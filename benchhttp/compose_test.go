package benchhttp

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"

	"github.com/uds-migrate/uds-migrate/bench"
)

// seed004 is shared case 11 (nginx in front of unicorn) as uds-migrate -w
// leaves it (testdata/script/proxy/nginx-unicorn.txtar, want/).
var seed004 = map[string]string{
	"compose.yaml": `services:
  app:
    build: ./app
    command: bundle exec unicorn -c ./unicorn.rb
    expose:
      - "8080"
    volumes:
      - app-socket:/run/app
  rproxy:
    image: nginx:1.27
    ports:
      - "80:80"
    volumes:
      - ./nginx_conf.d:/etc/nginx/conf.d:ro
      - app-socket:/run/app:ro
    depends_on:
      - app
volumes:
  app-socket:
`,
	"nginx_conf.d/default.conf": "upstream backend {\n\tserver unix:/run/app/app.sock;\n}\n\nserver {\n\tlisten 80;\n\tserver_name _;\n\tlocation / {\n\t\tproxy_pass http://backend;\n\t}\n}\n",
}

func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// LoadCompose finds the proxy, the app behind it, the app's TCP address
// (its only exposed port) and the socket (the unix: upstream of the
// mounted conf.d, inside the volume both mount).
func TestLoadComposeFindsProxyAndApp(t *testing.T) {
	dir := writeProject(t, seed004)
	f := filepath.Join(dir, "compose.yaml")
	ct, err := LoadCompose(context.Background(), []string{f}, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := &ComposeTarget{Files: []string{f}, Proxy: "rproxy", Image: "nginx:1.27", Networks: []string{"default"},
		App: "app", AppTCP: "app:8080", Volume: "app-socket", VolumeType: "volume", SocketDir: "/run/app", Socket: "/run/app/app.sock"}
	if !reflect.DeepEqual(ct, want) {
		t.Errorf("got  %+v\nwant %+v", ct, want)
	}
	// The flags win over what the files say.
	ct, err = LoadCompose(context.Background(), []string{f}, "rproxy", "/run/app/other.sock", "app:9000")
	if err != nil || ct.Socket != "/run/app/other.sock" || ct.AppTCP != "app:9000" {
		t.Errorf("with flags: %+v, %v", ct, err)
	}
}

func TestLoadComposeSaysWhatIsMissing(t *testing.T) {
	for name, tc := range map[string]struct {
		edit   func(map[string]string)
		socket string
		want   string
	}{
		"not migrated": {edit: func(m map[string]string) {
			m["nginx_conf.d/default.conf"] = strings.ReplaceAll(m["nginx_conf.d/default.conf"], "unix:/run/app/app.sock", "app:8080")
		}, want: "0 unix: upstreams in its mounted nginx configuration (): name the app's socket"},
		"socket outside a shared volume": {socket: "/tmp/app.sock", want: "mounts no volume holding /tmp/app.sock that another service mounts too: migrate the file first"},
		"no port": {edit: func(m map[string]string) {
			m["compose.yaml"] = strings.Replace(m["compose.yaml"], "    expose:\n      - \"8080\"\n", "", 1)
		}, want: "service app exposes 0 ports (): name the app's TCP address with --app-tcp"},
		"two proxies": {edit: func(m map[string]string) {
			m["compose.yaml"] = strings.Replace(m["compose.yaml"], "volumes:\n  app-socket:\n", "  edge:\n    image: openresty/openresty:1.25\nvolumes:\n  app-socket:\n", 1)
		}, want: "several proxy services (edge, rproxy): choose one with --service"},
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range seed004 {
				files[k] = v
			}
			if tc.edit != nil {
				tc.edit(files)
			}
			dir := writeProject(t, files)
			_, err := LoadCompose(context.Background(), []string{filepath.Join(dir, "compose.yaml")}, "", tc.socket, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// The override loads with the project: the sidecar runs the proxy's image
// with the rendered nginx.conf, mounts the socket volume read-only where
// the proxy does, joins its network, depends on the app, and stays out of
// `docker compose up` without its profile. The config proxies one front to
// the app's service name, the other to its socket.
func TestComposeOverrideLoads(t *testing.T) {
	dir := writeProject(t, seed004)
	f := filepath.Join(dir, "compose.yaml")
	ct, err := LoadCompose(context.Background(), []string{f}, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	r := &ComposeRun{Target: ct, Dir: t.TempDir()}
	if err := r.Prepare(0); err != nil {
		t.Fatal(err)
	}
	opts, _ := cli.NewProjectOptions([]string{f, r.Override()}, cli.WithProfiles([]string{bench.SidecarProf}), cli.WithName("t"))
	proj, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("override does not load: %v", err)
	}
	side, err := proj.GetService(ProxySidecar)
	if err != nil {
		t.Fatal(err)
	}
	if side.Image != "nginx:1.27" || !reflect.DeepEqual([]string(side.Entrypoint), []string{"nginx", "-c", sidecarConf}) {
		t.Errorf("sidecar image %q entrypoint %q", side.Image, side.Entrypoint)
	}
	if _, ok := side.DependsOn["app"]; !ok {
		t.Errorf("sidecar does not depend on app: %v", side.DependsOn)
	}
	var sock, conf bool
	for _, v := range side.Volumes {
		sock = sock || v.Source == "app-socket" && v.Target == "/run/app" && v.ReadOnly
		conf = conf || v.Target == sidecarConf && v.Source == filepath.Join(r.Dir, "nginx.conf") && v.ReadOnly
	}
	if !sock || !conf {
		t.Errorf("sidecar volumes %+v", side.Volumes)
	}
	if _, ok := side.Networks["default"]; !ok {
		t.Errorf("sidecar networks %v", side.Networks)
	}
	text, err := os.ReadFile(filepath.Join(r.Dir, "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"listen 0.0.0.0:8081;", "proxy_pass http://app:8080;", "listen 0.0.0.0:8082;", "proxy_pass http://unix:/run/app/app.sock:/;", "error_log /dev/stderr warn;", "daemon off;"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("nginx.conf lacks %q:\n%s", want, text)
		}
	}
	plain, _ := cli.NewProjectOptions([]string{f, r.Override()}, cli.WithName("t"))
	if p, err := plain.LoadProject(context.Background()); err != nil {
		t.Fatal(err)
	} else if slices.Contains(p.ServiceNames(), ProxySidecar) {
		t.Error("sidecar active without its profile")
	}
}

func TestSocketPath(t *testing.T) {
	for in, want := range map[string]string{
		"unix:/run/app/app.sock":            "/run/app/app.sock",
		"http://unix:/run/app/app.sock:/":   "/run/app/app.sock",
		"http://unix:/run/app.sock:/api/v1": "/run/app.sock",
		"http://unix:/run/app.sock":         "/run/app.sock",
		"app:8080":                          "",
		"http://backend":                    "",
		"unix:relative.sock":                "",
	} {
		if got := socketPath(in); got != want {
			t.Errorf("socketPath(%q) = %q, want %q", in, got, want)
		}
	}
}
