package hostvar

import (
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
)

// TestMountedTree: which bind-mount source widens a service's evidence
// root outside a repository: one holding the compose file's folder, at
// most maxBuilderParents folders up, never the filesystem root, the home
// folder or above it, a named volume or a folder beside the project.
func TestMountedTree(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	dir := "/home/u/src/app/.devcontainer"
	bind := func(src string) types.ServiceVolumeConfig {
		return types.ServiceVolumeConfig{Type: types.VolumeTypeBind, Source: src, Target: "/x"}
	}
	for _, c := range []struct {
		name string
		vols []types.ServiceVolumeConfig
		want string
	}{
		{"parent", []types.ServiceVolumeConfig{bind("/home/u/src/app")}, "/home/u/src/app"},
		{"outermost of two", []types.ServiceVolumeConfig{bind("/home/u/src/app"), bind("/home/u/src")}, "/home/u/src"},
		{"the folder itself", []types.ServiceVolumeConfig{bind(dir)}, ""},
		{"below it", []types.ServiceVolumeConfig{bind(dir + "/conf")}, ""},
		{"beside the project", []types.ServiceVolumeConfig{bind("/home/u/src/other")}, ""},
		{"home", []types.ServiceVolumeConfig{bind("/home/u")}, ""},
		{"above home", []types.ServiceVolumeConfig{bind("/home")}, ""},
		{"filesystem root", []types.ServiceVolumeConfig{bind("/")}, ""},
		{"named volume", []types.ServiceVolumeConfig{{Type: types.VolumeTypeVolume, Source: "/home/u/src/app", Target: "/x"}}, ""},
	} {
		if got := mountedTree(c.vols, dir); got != c.want {
			t.Errorf("%s: mountedTree = %q, want %q", c.name, got, c.want)
		}
	}
	deep := "/srv/a/b/c/d/e/compose"
	if got := mountedTree([]types.ServiceVolumeConfig{bind("/srv/a/b/c/d")}, deep); got != "/srv/a/b/c/d" {
		t.Errorf("two folders up: %q", got)
	}
	if got := mountedTree([]types.ServiceVolumeConfig{bind("/srv/a")}, deep); got != "" {
		t.Errorf("five folders up: %q, want none (maxBuilderParents %d)", got, maxBuilderParents)
	}
}
