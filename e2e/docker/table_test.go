package dockere2e

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// TestScenarioTable needs no engine: every scenario's project materialises,
// names services that exist, and its override loads with compose-go
// together with the project (the `!reset` tags included), replacing each
// client's entrypoint.
func TestScenarioTable(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			dir := sc.dir(t)
			file := filepath.Join(dir, (&project{dir: dir}).file())
			proj := loadCompose(t, dir, file)
			services := map[string]composeService{}
			for name, s := range proj.Services {
				cs := composeService{Image: s.Image}
				if s.Build != nil {
					cs.Build = []byte("{}")
				}
				if len(s.Ports) > 0 {
					cs.Ports = []byte("[{}]")
				}
				services[name] = cs
			}
			for _, names := range [][]string{sortedKeys(sc.clients), sortedKeys(sc.servers)} {
				for _, name := range names {
					if _, ok := services[name]; !ok {
						t.Errorf("%s is not a service of %s", name, file)
					}
				}
			}
			writeFile(t, filepath.Join(dir, overrideName), []byte(renderOverride("tag", services, sc.servers, sc.clients)))
			merged := loadCompose(t, dir, file, filepath.Join(dir, overrideName))
			for name := range sc.clients {
				s := merged.Services[name]
				if len(s.Entrypoint) == 0 || s.Entrypoint[0] != "/bin/sh" || s.Build != nil || s.Image == "" {
					t.Errorf("client %s after the override: entrypoint %q, build %v, image %q", name, s.Entrypoint, s.Build, s.Image)
				}
			}
			for name, s := range merged.Services {
				if len(s.Ports) > 0 {
					t.Errorf("%s still publishes %v", name, s.Ports)
				}
			}
		})
	}
}

func loadCompose(t *testing.T, dir string, files ...string) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions(files, cli.WithWorkingDirectory(dir), cli.WithName("t"), cli.WithProfiles([]string{"*"}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p
}
