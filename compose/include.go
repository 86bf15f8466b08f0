package compose

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/template"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/yamledit"
	"gopkg.in/yaml.v3"
)

// Top-level include: (Compose Specification "include", docker compose
// 2.20+): each entry names a compose file (or a list: a file and its
// overrides) loaded as a project of its own, in its own project directory
// (project_directory, else the file's directory), and merged into the
// including project. compose-go loads them for the model; the migration
// also reads them as sources, so a server defined there gets its socket
// volume declared and mounted in its own file.

// includeRef is one include: entry: the files it loads (absolute) and the
// project directory their relative paths resolve against.
type includeRef struct {
	item       *yaml.Node
	paths      []string
	projectDir string
}

// includes lists src's include: entries. dir is the directory its relative
// include paths resolve against (the project directory, as compose-go
// does); values are interpolated with env.
func includes(src *Source, dir string, env map[string]string) []includeRef {
	_, inc := yamledit.OwnKey(src.Root, "include")
	if inc = yamledit.Deref(inc); inc == nil || inc.Kind != yaml.SequenceNode {
		return nil
	}
	abs := func(s string) string {
		s, err := template.SubstituteWithOptions(s, func(k string) (string, bool) {
			v, ok := env[k]
			return v, ok
		}, template.WithoutLogging)
		if err != nil || s == "" {
			return ""
		}
		if !filepath.IsAbs(s) {
			s = filepath.Join(dir, s)
		}
		return filepath.Clean(s)
	}
	var out []includeRef
	for _, it := range inc.Content {
		it = yamledit.Deref(it)
		r := includeRef{item: it}
		if it.Kind == yaml.ScalarNode {
			r.paths = []string{abs(it.Value)}
		} else {
			_, p := yamledit.MapGet(it, "path")
			for _, n := range pathScalars(p) {
				r.paths = append(r.paths, abs(n.Value))
			}
			if _, pd := yamledit.MapGet(it, "project_directory"); yamledit.Deref(pd) != nil && yamledit.Deref(pd).Kind == yaml.ScalarNode {
				r.projectDir = abs(yamledit.Deref(pd).Value)
			}
		}
		if len(r.paths) == 0 || r.paths[0] == "" {
			continue
		}
		if r.projectDir == "" {
			r.projectDir = filepath.Dir(r.paths[0])
		}
		out = append(out, r)
	}
	return out
}

// loadIncludes adds the files the sources include (and those they include,
// up to a depth of 8) to p.sources, read through Options.ReadFile so a
// second run sees migrated content.
func (p *Project) loadIncludes(dir string) error {
	seen := map[string]bool{}
	for _, s := range p.Sources {
		if a, err := filepath.Abs(s.Path); err == nil {
			seen[a] = true
		}
	}
	queue := make([]*Source, len(p.Sources))
	copy(queue, p.Sources)
	dirs := map[*Source]string{}
	for _, s := range queue {
		dirs[s] = dir
	}
	for depth := 0; len(queue) > 0 && depth < 8; depth++ {
		var next []*Source
		for _, s := range queue {
			for _, r := range includes(s, dirs[s], p.Env) {
				for _, path := range r.paths {
					if path == "" || seen[path] {
						continue
					}
					seen[path] = true
					name := displayPathFrom(p.Sources[0].Path, path)
					data, err := p.ReadFile(name)
					if err != nil {
						return &finding.PosError{Pos: finding.Pos{File: s.Path, Line: r.item.Line, Col: r.item.Column}, Msg: fmt.Sprintf("include %s: %v", name, err)}
					}
					src, err := yamledit.NewSource(name, data)
					if err != nil {
						return err
					}
					p.Sources = append(p.Sources, src)
					p.Included++
					dirs[src] = r.projectDir
					next = append(next, src)
				}
			}
		}
		queue = next
	}
	return nil
}

// includeOverlay returns, for compose-go, the inputs' contents with include:
// entries redirected to temporary copies of included files whose content
// read (Options.ReadFile: the migrated output, in Migrate's verification)
// differs from the disk: compose-go reads included files from the disk
// itself. The copies keep the original project directory, so relative
// paths in them resolve as before. Only for loading: never printed.
// cleanup removes the copies.
func includeOverlay(inputs []Input, dir string, env map[string]string, read func(string) ([]byte, error)) (contents [][]byte, cleanup func(), err error) {
	cleanup = func() {}
	if read == nil {
		return nil, cleanup, nil
	}
	var tmp string
	for i, in := range inputs {
		src, err := yamledit.NewSource(in.Path, in.Data)
		if err != nil {
			return nil, cleanup, nil // load reports it
		}
		changed := false
		for _, r := range includes(src, dir, env) {
			var paths []string
			moved := false
			for _, path := range r.paths {
				data, err := read(displayPathFrom(inputs[0].Path, path))
				disk, derr := os.ReadFile(path)
				if err != nil || derr != nil || bytes.Equal(data, disk) {
					paths = append(paths, path)
					continue
				}
				if tmp == "" {
					if tmp, err = os.MkdirTemp("", "uds-migrate-include"); err != nil {
						return nil, cleanup, err
					}
					cleanup = func() { os.RemoveAll(tmp) }
				}
				copyDir, err := os.MkdirTemp(tmp, "f")
				if err != nil {
					return nil, cleanup, err
				}
				cp := filepath.Join(copyDir, filepath.Base(path))
				if err := os.WriteFile(cp, data, 0o600); err != nil {
					return nil, cleanup, err
				}
				paths, moved = append(paths, cp), true
			}
			if moved {
				redirect(r.item, paths, r.projectDir)
				changed = true
			}
		}
		if changed {
			if contents == nil {
				contents = make([][]byte, len(inputs))
			}
			if contents[i], err = yaml.Marshal(src.Root); err != nil {
				return nil, cleanup, err
			}
		}
	}
	return contents, cleanup, nil
}

// redirect turns an include entry into {path: paths, project_directory:
// dir}, keeping its other keys (env_file).
func redirect(item *yaml.Node, paths []string, dir string) {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, p := range paths {
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p})
	}
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	var keep []*yaml.Node
	if item.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(item.Content); i += 2 {
			if k := item.Content[i].Value; k != "path" && k != "project_directory" {
				keep = append(keep, item.Content[i], item.Content[i+1])
			}
		}
	}
	*item = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map",
		Content: append([]*yaml.Node{str("path"), seq, str("project_directory"), str(dir)}, keep...)}
}

// displayPathFrom names an included file the way the first compose file
// is named: relative to the current directory when that one is (an include
// may sit beside the project, ../infra/db.yaml), else absolute.
func displayPathFrom(first, abs string) string {
	if filepath.IsAbs(first) {
		return abs
	}
	dir, err := filepath.Abs(filepath.Dir(first))
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return abs
	}
	return filepath.Join(filepath.Dir(first), rel)
}
