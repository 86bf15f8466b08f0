package compose

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/compose-spec/compose-go/v2/dotenv"
	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/template"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/yamledit"
	"gopkg.in/yaml.v3"
)

// compose-go reads whole every file a compose file names (env_file,
// label_file, extends.file, include, an include's env_file or its
// project's .env), so a FIFO blocks it forever and /dev/zero never ends
// (issue 25: 811 MB in 15 s behind env_file: ${EF:-p.fifo}). Every such file
// is checked here before compose-go opens it: checkFileRefs walks the
// compose files, the files they include and extend, and interpolates the
// names as compose does; guardFileReads keeps compose-go from reading
// env_file and label_file itself, and resolveFileRefs checks the paths
// the model resolved (whatever file or reference named them) before
// reading them. Load calls all three; nothing else here reads a file.

// maxRefDepth bounds how deep include: and extends.file chains are
// followed (compose-go reports cycles itself).
const maxRefDepth = 16

// CheckRegular returns nil when path is a regular file of at most
// MaxFileSize bytes (following symbolic links), the Stat error when it
// cannot be examined (fs.ErrNotExist for a missing file), and an error
// saying what it is otherwise. Nothing is opened.
func CheckRegular(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("is %s, not a regular file: compose would read it whole", fileKind(fi.Mode()))
	case fi.Size() > MaxFileSize:
		return fmt.Errorf("is larger than %d MiB: not a compose or env file", MaxFileSize>>20)
	}
	return nil
}

// checkFileRefs refuses, before compose-go reads them, the files the
// compose files srcs name that exist but are not regular files or are
// larger than MaxFileSize, at the position of the name: env_file,
// label_file and extends.file of each service, include entries and their
// env_file (or the included project's .env), in the compose files and in
// every file they include or extend. Names are interpolated with env (the
// project's interpolation environment; an include's env files add to it
// for its files, as compose-go does). A relative name in a -f file is
// tried against its own directory and projectDir; in an included file
// against its project directory, in an extended file against that file's
// directory, where compose-go resolves them. A missing file is left to
// compose-go, whose error gets a position in composeError.
func checkFileRefs(srcs []*Source, projectDir string, env map[string]string) error {
	w := &refWalk{first: srcs[0].Path, seen: map[string]bool{}}
	for _, s := range srcs {
		if abs, err := filepath.Abs(s.Path); err == nil {
			w.seen[abs] = true
		}
	}
	for _, s := range srcs {
		if err := w.visit(s, []string{filepath.Dir(s.Path), projectDir}, env, 0, true); err != nil {
			return err
		}
	}
	return nil
}

type refWalk struct {
	first string          // the first compose file's path, for display names
	seen  map[string]bool // files visited, absolute
}

// visit checks the names in s and follows its extends files (and its
// include entries when includes is set: an extended file's own include:
// is not loaded by compose-go).
func (w *refWalk) visit(s *Source, dirs []string, env map[string]string, depth int, includes bool) error {
	if depth > maxRefDepth {
		return nil
	}
	// check resolves n's name and checks it; it returns the absolute path
	// when the file exists and passes, "" when it is missing or the name
	// is interpolated to nothing.
	check := func(role string, n *yaml.Node, dirs []string) (string, error) {
		name, ok := interpolated(n.Value, env)
		if !ok {
			return "", nil
		}
		for _, d := range dirs {
			p := name
			if !filepath.IsAbs(p) {
				if d == "" {
					continue
				}
				p = filepath.Join(d, p)
			}
			err := CheckRegular(p)
			switch {
			case err == nil:
				abs, aerr := filepath.Abs(p)
				if aerr != nil {
					return "", nil
				}
				return abs, nil
			case errors.Is(err, fs.ErrNotExist):
				continue
			}
			shown := n.Value
			if name != n.Value {
				shown = n.Value + " (" + name + ")"
			}
			return "", &finding.PosError{Pos: yamledit.NodePos(s, n), Msg: role + " " + shown + " " + err.Error()}
		}
		return "", nil
	}
	if err := checkEnvCount(s); err != nil {
		return err
	}
	for _, key := range []string{"env_file", "label_file"} {
		for _, n := range serviceKeyNodes(s.Root, key) {
			if _, err := check(key, n, dirs); err != nil {
				return err
			}
		}
	}
	for _, n := range extendsFileNodes(s.Root) {
		abs, err := check("extends.file", n, dirs)
		if err != nil {
			return err
		}
		if ext := w.source(abs); ext != nil {
			if err := w.visit(ext, []string{filepath.Dir(abs)}, env, depth+1, false); err != nil {
				return err
			}
		}
	}
	if !includes {
		return nil
	}
	_, inc := yamledit.OwnKey(s.Root, "include")
	if inc = yamledit.Deref(inc); inc == nil || inc.Kind != yaml.SequenceNode {
		return nil
	}
	for _, it := range inc.Content {
		it = yamledit.Deref(it)
		paths := pathScalars(it)
		var envNodes []*yaml.Node
		if it.Kind == yaml.MappingNode {
			_, p := yamledit.MapGet(it, "path")
			paths = pathScalars(p)
			_, e := yamledit.MapGet(it, "env_file")
			envNodes = pathScalars(e)
		}
		checkAll := func(role string, nodes []*yaml.Node) ([]string, error) {
			var out []string
			for _, n := range nodes {
				abs, err := check(role, n, dirs)
				if err != nil {
					return nil, err
				}
				out = append(out, abs)
			}
			return out, nil
		}
		files, err := checkAll("include", paths)
		if err != nil {
			return err
		}
		// compose-go reads the entry's env files (or its project's .env)
		// before it loads the included files, even a missing one; the
		// project directory is the first file's, as named.
		work := dirs[len(dirs)-1]
		projDir := ""
		if len(paths) > 0 {
			if name, ok := interpolated(paths[0].Value, env); ok {
				if !filepath.IsAbs(name) {
					name = filepath.Join(work, name)
				}
				projDir = filepath.Dir(name)
			}
		}
		if it.Kind == yaml.MappingNode {
			if _, pd := yamledit.MapGet(it, "project_directory"); yamledit.Deref(pd) != nil && yamledit.Deref(pd).Kind == yaml.ScalarNode {
				if d, ok := interpolated(yamledit.Deref(pd).Value, env); ok {
					if !filepath.IsAbs(d) {
						d = filepath.Join(work, d)
					}
					projDir = d
				}
			}
		}
		// The included files' interpolation: env, plus what their env
		// files set that env does not (types.Mapping.Merge).
		incEnv := env
		envFiles, err := checkAll("the include's env_file", envNodes)
		if err != nil {
			return err
		}
		if len(envNodes) == 0 && projDir != "" {
			dot := filepath.Join(projDir, ".env")
			if err := CheckRegular(dot); err != nil && !errors.Is(err, fs.ErrNotExist) {
				if fi, serr := os.Stat(dot); serr == nil && fi.IsDir() {
					err = nil // compose-go skips a directory named .env
				}
				if err != nil {
					return &finding.PosError{Pos: yamledit.NodePos(s, it), Msg: fmt.Sprintf("%s, the included project's .env, %v", w.display(dot), err)}
				}
			} else if err == nil {
				envFiles = append(envFiles, dot)
			}
		}
		if len(envFiles) > 0 {
			incEnv = mergedEnv(env, envFiles)
		}
		for _, f := range files {
			if src := w.source(f); src != nil {
				if err := w.visit(src, []string{projDir}, incEnv, depth+1, true); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// source reads and parses the compose file at abs (checked already), once;
// nil when abs is "", seen, unreadable or not YAML (compose-go reports
// those).
func (w *refWalk) source(abs string) *Source {
	if abs == "" || w.seen[abs] {
		return nil
	}
	w.seen[abs] = true
	data, err := ReadRegular(abs)
	if err != nil {
		return nil
	}
	src, err := yamledit.NewSource(w.display(abs), data)
	if err != nil {
		return nil
	}
	return src
}

func (w *refWalk) display(abs string) string { return displayPathFrom(w.first, abs) }

// mergedEnv is env plus the variables files set that env does not, each
// file's values interpolated as dotenv does; unreadable or malformed
// files add nothing (compose-go reports them).
func mergedEnv(env map[string]string, files []string) map[string]string {
	out := make(map[string]string, len(env))
	for k, v := range env {
		out[k] = v
	}
	for _, f := range files {
		if f == "" {
			continue
		}
		data, err := ReadRegular(f)
		if err != nil {
			continue
		}
		vals, err := dotenv.UnmarshalBytesWithLookup(withoutBOM(data), func(k string) (string, bool) {
			v, ok := out[k]
			return v, ok
		})
		if err != nil {
			continue
		}
		for k, v := range vals {
			if _, set := out[k]; !set {
				out[k] = v
			}
		}
	}
	return out
}

// interpolated is a file name as compose interpolates it; ok is false for
// an empty result or a reference compose refuses.
func interpolated(s string, env map[string]string) (string, bool) {
	if s == "" {
		return "", false
	}
	if !strings.Contains(s, "$") {
		return s, true
	}
	v, err := template.SubstituteWithOptions(s, func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}, template.WithoutLogging)
	if err != nil || v == "" {
		return "", false
	}
	return v, true
}

// MaxEnvVars is the most environment variables a service may have,
// environment: and env files together (README, "Security and limits"):
// real services have tens; every step of the migration walks them, and
// compose-go's load takes about 0.2 ms each (30,000 took 19.5 s before
// issue 25, 5 s after).
const MaxEnvVars = 2000

// checkEnvCount refuses a service of s whose environment: holds more than
// MaxEnvVars entries, at its environment key, before compose-go reads it.
func checkEnvCount(s *Source) error {
	_, svcs := yamledit.OwnKey(s.Root, "services")
	if svcs = yamledit.Deref(svcs); svcs == nil || svcs.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(svcs.Content); i += 2 {
		svc := yamledit.Deref(svcs.Content[i+1])
		if n := len(EnvEntries(svc)); n > MaxEnvVars {
			at, _ := yamledit.MapGet(svc, "environment")
			if at == nil {
				at = svcs.Content[i]
			}
			return &finding.PosError{Pos: yamledit.NodePos(s, at), Msg: fmt.Sprintf("service %s has %d environment variables, more than the %d the tool reads (no service needs this many)", svcs.Content[i].Value, n, MaxEnvVars)}
		}
	}
	return nil
}

// guardFileReads keeps compose-go from reading env_file and label_file
// while it loads: resolveFileRefs reads them once checked.
func guardFileReads(o *loader.Options) {
	o.SkipResolveEnvironment = true
	o.SkipResolveLabels = true
}

// resolveFileRefs checks every env_file and label_file the loaded model
// names (services and their pre_start hooks, from any file, include or
// extends, after interpolation) with checkRegular, then lets compose-go
// read them: the environment and labels compose would compute. Errors name
// the service and the file ("services.app.env_file: /p/x.env is a named
// pipe ..."), which composeError positions. The environment and labels of
// a service that names a missing file get compose-go's own error.
func resolveFileRefs(model *types.Project) (*types.Project, error) {
	for _, name := range model.ServiceNames() {
		svc := model.Services[name]
		specs := []types.ContainerSpec{svc.ContainerSpec}
		for _, h := range svc.PreStart {
			specs = append(specs, h.ContainerSpec)
		}
		for _, spec := range specs {
			// A missing file is compose-go's to report, in its words.
			for _, ef := range spec.EnvFiles {
				if err := CheckRegular(ef.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("services.%s.env_file: %s %v", name, ef.Path, err)
				}
			}
			for _, lf := range spec.LabelFiles {
				if err := CheckRegular(lf); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("services.%s.label_file: %s %v", name, lf, err)
				}
			}
		}
	}
	model, err := model.WithServicesEnvironmentResolved(false)
	if err != nil {
		return nil, err
	}
	for _, name := range model.ServiceNames() {
		if n := len(model.Services[name].Environment); n > MaxEnvVars {
			return nil, fmt.Errorf("services.%s.env_file: service %s has %d environment variables with its env files, more than the %d the tool reads (no service needs this many)", name, name, n, MaxEnvVars)
		}
	}
	return model.WithServicesLabelsResolved(false)
}

// serviceFileNodes lists the scalars that name each service's env_file and
// label_file (a name, a list of names, or a list of {path: name}).
func serviceFileNodes(root *yaml.Node) []*yaml.Node {
	return append(serviceKeyNodes(root, "env_file"), serviceKeyNodes(root, "label_file")...)
}

// serviceKeyNodes lists the file names under key in each service.
func serviceKeyNodes(root *yaml.Node, key string) []*yaml.Node {
	var out []*yaml.Node
	for _, svc := range serviceNodes(root) {
		_, v := yamledit.MapGet(svc, key)
		out = append(out, pathScalars(v)...)
	}
	return out
}

// extendsFileNodes lists each service's extends.file scalar.
func extendsFileNodes(root *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	for _, svc := range serviceNodes(root) {
		if _, ext := yamledit.MapGet(svc, "extends"); yamledit.Deref(ext) != nil && yamledit.Deref(ext).Kind == yaml.MappingNode {
			_, f := yamledit.MapGet(ext, "file")
			out = append(out, pathScalars(f)...)
		}
	}
	return out
}

// serviceNodes lists the service mappings of a compose document.
func serviceNodes(root *yaml.Node) []*yaml.Node {
	_, svcs := yamledit.OwnKey(root, "services")
	if svcs = yamledit.Deref(svcs); svcs == nil || svcs.Kind != yaml.MappingNode {
		return nil
	}
	var out []*yaml.Node
	for i := 1; i < len(svcs.Content); i += 2 {
		out = append(out, yamledit.Deref(svcs.Content[i]))
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

// CheckFileRefs runs the check before loading (checkFileRefs) on compose
// files read with ReadInputs, for callers that load them with compose-go
// themselves (bench --compose): an error names the file and the position
// of its name. opts gives the project directory, env files and
// environment, as for Load.
func CheckFileRefs(inputs []Input, opts LoadOptions) error {
	if len(inputs) == 0 {
		return nil
	}
	var srcs []*Source
	for _, in := range inputs {
		src, err := yamledit.NewSource(in.Path, in.Data)
		if err != nil {
			return err
		}
		srcs = append(srcs, src)
	}
	dir, err := projectDir(inputs, opts)
	if err != nil {
		return err
	}
	env, _, err := interpolationEnv(dir, opts)
	if err != nil {
		return err
	}
	return checkFileRefs(srcs, dir, env)
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

// fileRefNodes lists the scalars that name files compose-go reads in one
// compose file: each service's env_file, label_file and extends.file, and
// the top-level include entries (a name, {path: name or names, env_file:
// ...}).
func fileRefNodes(root *yaml.Node) []*yaml.Node {
	out := append(serviceFileNodes(root), extendsFileNodes(root)...)
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
