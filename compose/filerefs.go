package compose

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/yamledit"
	"gopkg.in/yaml.v3"
)

// checkFileRefs refuses, before compose-go reads them, the files a compose
// file names (env_file, label_file, extends: file:, include) that exist but
// are not regular files or are larger than MaxFileSize: compose-go reads
// them whole, so a FIFO blocks it forever and /dev/zero never ends (found by
// FuzzMigrate). A missing file is left to compose-go, whose error gets a
// position in composeError. Relative names are tried against the compose
// file's directory and the project directory, where compose resolves them.
func checkFileRefs(srcs []*Source, projectDir string) error {
	for _, s := range srcs {
		dirs := []string{filepath.Dir(s.Path)}
		if projectDir != "" {
			dirs = append(dirs, projectDir)
		}
		for _, n := range fileRefNodes(s.Root) {
			if n.Value == "" || strings.Contains(n.Value, "$") {
				continue // interpolated: compose-go's business
			}
			for _, d := range dirs {
				p := n.Value
				if !filepath.IsAbs(p) {
					p = filepath.Join(d, p)
				}
				fi, err := os.Stat(p)
				switch {
				case err != nil:
				case !fi.Mode().IsRegular():
					return &finding.PosError{Pos: yamledit.NodePos(s, n), Msg: fmt.Sprintf("%s is %s, not a regular file: compose would read it whole", n.Value, fileKind(fi.Mode()))}
				case fi.Size() > MaxFileSize:
					return &finding.PosError{Pos: yamledit.NodePos(s, n), Msg: fmt.Sprintf("%s is larger than %d MiB: not a compose or env file", n.Value, MaxFileSize>>20)}
				}
			}
		}
	}
	return nil
}

// FileRefs lists the files a compose file names for compose-go to read
// (each service's env_file, label_file and extends.file, the include
// entries and their env_file), as written: uninterpolated, relative to the
// compose file's folder unless absolute. Errors are *PosError (invalid
// YAML).
func FileRefs(in Input) ([]string, error) {
	src, err := yamledit.NewSource(in.Path, in.Data)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range fileRefNodes(src.Root) {
		if n.Value != "" {
			out = append(out, n.Value)
		}
	}
	return out, nil
}

// fileRefNodes lists the scalars that name files compose-go reads: each
// service's env_file and label_file (a name, a list of names, or a list of
// {path: name}) and extends.file, and the top-level include entries (a
// name, {path: name or names, env_file: ...}).
func fileRefNodes(root *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	_, svcs := yamledit.OwnKey(root, "services")
	if svcs = yamledit.Deref(svcs); svcs != nil && svcs.Kind == yaml.MappingNode {
		for i := 1; i < len(svcs.Content); i += 2 {
			svc := yamledit.Deref(svcs.Content[i])
			for _, key := range []string{"env_file", "label_file"} {
				_, v := yamledit.MapGet(svc, key)
				out = append(out, pathScalars(v)...)
			}
			if _, ext := yamledit.MapGet(svc, "extends"); yamledit.Deref(ext) != nil && yamledit.Deref(ext).Kind == yaml.MappingNode {
				_, f := yamledit.MapGet(ext, "file")
				out = append(out, pathScalars(f)...)
			}
		}
	}
	_, inc := yamledit.OwnKey(root, "include")
	out = append(out, pathScalars(inc)...)
	if inc = yamledit.Deref(inc); inc != nil && inc.Kind == yaml.SequenceNode {
		for _, it := range inc.Content {
			_, env := yamledit.MapGet(it, "env_file")
			out = append(out, pathScalars(env)...)
		}
	}
	return out
}

// pathScalars returns the file names in n: a scalar, or the scalars and
// path: values of a list.
func pathScalars(n *yaml.Node) []*yaml.Node {
	n = yamledit.Deref(n)
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return []*yaml.Node{n}
	case yaml.SequenceNode:
		var out []*yaml.Node
		for _, it := range n.Content {
			if it = yamledit.Deref(it); it.Kind == yaml.MappingNode {
				_, p := yamledit.MapGet(it, "path")
				out = append(out, pathScalars(p)...)
			} else if it.Kind == yaml.ScalarNode {
				out = append(out, it)
			}
		}
		return out
	}
	return nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
