package hostvar

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
)

// TestMountedTree: which part of a bind-mounted tree widens a service's
// evidence root outside a repository: a mount holding the compose file's
// folder, at most maxBuilderParents folders up, cut at the nearest folder
// that looks like a repository's top; never the filesystem root, the home
// folder or above it, a named volume or a folder beside the project.
func TestMountedTree(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home", "u")
	t.Setenv("HOME", home)
	app := filepath.Join(home, "src", "app")
	dir := filepath.Join(app, ".devcontainer")
	bare := filepath.Join(home, "src", "bare", ".devcontainer") // no top-of-repository file
	deep := filepath.Join(base, "srv", "a", "b", "c", "d", "e", "compose")
	for _, d := range []string{dir, bare, deep, filepath.Join(home, "src", "other")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(app, "Cargo.toml"), filepath.Join(base, "srv", "a", "b", "c", "d", "README.md")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bind := func(src string) types.ServiceVolumeConfig {
		return types.ServiceVolumeConfig{Type: types.VolumeTypeBind, Source: src, Target: "/x"}
	}
	for _, c := range []struct {
		name string
		dir  string
		src  string
		want string
	}{
		{"parent", dir, app, app},
		{"the folder above the repository (../..): cut at the repository", dir, filepath.Join(home, "src"), app},
		{"no top-of-repository file up to the mount", bare, filepath.Dir(bare), ""},
		{"the folder itself", dir, dir, ""},
		{"below it", dir, filepath.Join(dir, "conf"), ""},
		{"beside the project", dir, filepath.Join(home, "src", "other"), ""},
		{"home", dir, home, ""},
		{"above home", dir, filepath.Dir(home), ""},
		{"filesystem root", dir, "/", ""},
		{"two folders up", deep, filepath.Join(base, "srv", "a", "b", "c", "d"), filepath.Join(base, "srv", "a", "b", "c", "d")},
		{"five folders up (beyond maxBuilderParents)", deep, filepath.Join(base, "srv", "a"), ""},
	} {
		if got := mountedTree([]types.ServiceVolumeConfig{bind(c.src)}, c.dir); got != c.want {
			t.Errorf("%s: mountedTree = %q, want %q", c.name, got, c.want)
		}
	}
	if got := mountedTree([]types.ServiceVolumeConfig{{Type: types.VolumeTypeVolume, Source: app, Target: "/x"}}, dir); got != "" {
		t.Errorf("named volume: mountedTree = %q, want none", got)
	}
}
