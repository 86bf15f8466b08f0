package compose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/compose-spec/compose-go/v2/dotenv"
	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/template"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/yamledit"
	"gopkg.in/yaml.v3"
)

// Input is one compose file to migrate: its path (for messages and for
// resolving relative paths such as env_file and .env) and its bytes.
type Input struct {
	Path string
	Data []byte
}

// LoadOptions are what compose itself takes from its command line and
// environment; the zero value loads like `docker compose -f FILE` with an
// empty process environment.
type LoadOptions struct {
	// Env is the process environment ("KEY=value") used for interpolation,
	// as compose uses it; nil means none.
	Env []string
	// ProjectDir is compose's --project-directory: relative paths and the
	// default .env resolve against it; "" means the first file's directory.
	ProjectDir string
	// EnvFiles are compose's --env-file files for interpolation; empty
	// means ProjectDir/.env when it exists.
	EnvFiles []string
	// Profiles limits the services to these compose profiles; empty means
	// every service, whatever its profiles (a migration must cover them).
	Profiles []string
	// ReadFile reads files other than the compose files (env files,
	// included files, configuration found through mounts); nil means
	// regular files only, up to MaxFileSize (ReadRegular).
	ReadFile func(path string) ([]byte, error)
}

// Project is a loaded compose project: the files as written (yaml.v3
// sources, for positions and edits) and compose-go's view of their meaning.
type Project struct {
	Sources []*Source
	Model   *types.Project
	Env     map[string]string // interpolation environment: OS env + .env
	Origin  map[string]string // variable → env file that sets it
	// ExtSources are files named by extends.file: read for positions,
	// edited like the compose files, but not part of the -f set.
	ExtSources []*Source
	read       func(string) ([]byte, error)
	names      map[string][]Carrier // host name → services carrying it; see nameIndex
	// Included counts the sources at the end of sources that are files
	// named by include: (see loadIncludes), not -f files.
	Included int
	// escaped are env files that lead outside the project through a
	// symbolic link (escapes), by path: left unread, reported as UDS172.
	escaped map[string]error
	// envs caches serviceEnv, by service.
	envs map[string][]EnvVar
}

// Load parses every input with yaml.v3 (positions) and the whole set with
// compose-go (meaning), then reads the files they include. Errors are
// *finding.PosError (file:line:col) where a position is known.
func Load(ctx context.Context, inputs []Input, opts LoadOptions) (*Project, error) {
	if len(inputs) == 0 {
		return nil, errors.New("no compose file given")
	}
	p := &Project{read: opts.ReadFile}
	for _, in := range inputs {
		src, err := yamledit.NewSource(in.Path, in.Data)
		if err != nil {
			return nil, err
		}
		_, svcs := yamledit.OwnKey(src.Root, "services")
		_, inc := yamledit.OwnKey(src.Root, "include")
		if svcs == nil && inc == nil && len(p.Sources) == 0 {
			return nil, notCompose(src)
		}
		p.Sources = append(p.Sources, src)
	}
	dir, err := projectDir(inputs, opts)
	if err != nil {
		return nil, err
	}
	ienv, _, err := interpolationEnv(dir, opts)
	if err != nil {
		return nil, err
	}
	if err := checkFileRefs(p.Sources, dir, ienv); err != nil {
		return nil, err
	}
	model, env, origin, err := loadModelSafely(ctx, inputs, opts)
	if err != nil {
		return nil, composeError(p.Sources, ienv, err)
	}
	p.Model, p.Env, p.Origin = model, env, origin
	if err := p.loadIncludes(dir); err != nil {
		return nil, err
	}
	return p, nil
}

// InterpolationEnv is compose's interpolation environment for a project
// directory: opts.EnvFiles (else dir/.env), read through opts.ReadFile,
// overridden by opts.Env. Errors name the env file.
func InterpolationEnv(dir string, opts LoadOptions) (map[string]string, error) {
	env, _, err := interpolationEnv(dir, opts)
	return env, err
}

// loadModel runs compose-go over the inputs from their bytes (so what is
// analysed is exactly what was read, and migrated output can be checked
// before it is written), with every profile enabled: a migration must cover
// services that only some profiles start. The interpolation environment is
// opts.Env plus the project directory's .env, as compose builds it.
func loadModel(ctx context.Context, inputs []Input, opts LoadOptions) (*types.Project, map[string]string, map[string]string, error) {
	dir, err := projectDir(inputs, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	env, origin, err := interpolationEnv(dir, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	contents, cleanup, err := includeOverlay(inputs, dir, env, opts.ReadFile)
	defer cleanup()
	if err != nil {
		return nil, nil, nil, err
	}
	details := types.ConfigDetails{WorkingDir: dir, Environment: env}
	for i, in := range inputs {
		abs, err := filepath.Abs(in.Path)
		if err != nil {
			return nil, nil, nil, err
		}
		data := in.Data
		if contents != nil && contents[i] != nil {
			data = contents[i]
		}
		details.ConfigFiles = append(details.ConfigFiles, types.ConfigFile{Filename: abs, Content: data})
	}
	profiles := opts.Profiles
	if len(profiles) == 0 {
		profiles = []string{"*"}
	}
	model, err := loader.LoadWithContext(ctx, details,
		loader.WithProfiles(profiles),
		func(o *loader.Options) {
			o.SetProjectName("uds-migrate", true)
			o.ResolvePaths = true
			guardFileReads(o)
		})
	if err == nil {
		model, err = resolveFileRefs(model)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return model, env, origin, nil
}

// projectDir is compose's project directory, absolute: --project-directory,
// else the first file's directory.
func projectDir(inputs []Input, opts LoadOptions) (string, error) {
	dir := filepath.Dir(inputs[0].Path)
	if opts.ProjectDir != "" {
		dir = opts.ProjectDir
	}
	return filepath.Abs(dir)
}

// interpolationEnv builds compose's interpolation environment: the env
// files (--env-file, else the project directory's .env, read through
// Options.ReadFile so a migrated .env is seen by the verification run),
// overridden by the process environment.
//
// origin maps each variable that an env file sets (and the process
// environment does not override) to that file, so a value written as
// ${NAME} can be edited where NAME is written.
func interpolationEnv(dir string, opts LoadOptions) (env, origin map[string]string, err error) {
	env, origin = map[string]string{}, map[string]string{}
	osEnv := map[string]string{}
	for _, kv := range opts.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			osEnv[k] = v
		}
	}
	files := opts.EnvFiles
	explicit := len(files) > 0
	if !explicit {
		files = []string{filepath.Join(dir, ".env")}
		// As docker compose (compose-go's WithEnvFiles): a true
		// COMPOSE_DISABLE_ENV_FILE drops the default .env, not --env-file.
		if v, ok := osEnv["COMPOSE_DISABLE_ENV_FILE"]; ok {
			off, err := strconv.ParseBool(v)
			if err != nil {
				return nil, nil, fmt.Errorf("COMPOSE_DISABLE_ENV_FILE=%q is not a boolean (docker compose refuses it too)", v)
			}
			if off {
				files = nil
			}
		}
	}
	read := opts.ReadFile
	if read == nil {
		read = ReadRegular
	}
	for _, f := range files {
		data, err := read(f)
		if err != nil {
			if !explicit && errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, nil, &finding.PosError{Pos: finding.Pos{File: f}, Msg: "cannot read env file: " + err.Error()}
		}
		vals, err := dotenv.UnmarshalBytesWithLookup(withoutBOM(data), func(k string) (string, bool) {
			if v, ok := osEnv[k]; ok {
				return v, true
			}
			v, ok := env[k]
			return v, ok
		})
		if err != nil {
			return nil, nil, &finding.PosError{Pos: finding.Pos{File: f}, Msg: HideValues(err.Error())}
		}
		for k, v := range vals {
			env[k], origin[k] = v, f
		}
	}
	for k, v := range osEnv {
		env[k] = v
		delete(origin, k)
	}
	return env, origin, nil
}

var composePathRE = regexp.MustCompile(`(services(?:\.[A-Za-z0-9_.-]+)*)`)

// composeError adds a position to a compose-go error when it names a path
// like "services.app.environment" that exists in the first file.
func composeError(srcs []*Source, env map[string]string, err error) error {
	msg := HideValues(err.Error())
	src := srcs[0]
	for _, s := range srcs {
		if strings.Contains(msg, s.Path) || strings.Contains(msg, filepath.Base(s.Path)) {
			src = s
			break
		}
	}
	// compose-go prefixes messages with the absolute file name; drop it so
	// the message reads file:line:col: msg.
	for _, s := range srcs {
		if abs, e := filepath.Abs(s.Path); e == nil {
			msg = strings.ReplaceAll(msg, abs+": ", "")
			msg = strings.ReplaceAll(msg, abs, s.Path)
		}
	}
	loc := composePathRE.FindString(msg)
	// jsonschema reports an unknown key as "validating a.b.key false schema".
	if rest, ok := strings.CutPrefix(msg, "validating "); ok && strings.HasSuffix(rest, " false schema") {
		p := strings.TrimSuffix(rest, " false schema")
		if i := strings.LastIndex(p, "."); i > 0 {
			msg = fmt.Sprintf("%s: additional property %s is not allowed (compose schema)", p[:i], p[i+1:])
		}
	}
	if m := requiredVarRE.FindStringSubmatch(msg); m != nil && loc != "" {
		// The reference may sit in any of the files merged at that path
		// (an override's labels): point at the scalar that holds it.
		if s, n := referenceNode(srcs, strings.Split(loc, "."), m[1]); n != nil {
			return &finding.PosError{Pos: yamledit.NodePos(s, n), Msg: msg}
		}
	}
	if loc != "" {
		if n := lookupPath(src.Root, strings.Split(loc, ".")); n != nil {
			return &finding.PosError{Pos: yamledit.NodePos(src, n), Msg: msg}
		}
	}
	if s, n := errorNode(srcs, msg); n != nil {
		return &finding.PosError{Pos: yamledit.NodePos(s, n), Msg: msg}
	}
	if s, n, unset := portErrorNode(srcs, env, msg); n != nil {
		if len(unset) > 0 {
			msg += fmt.Sprintf(" (this ports: entry reads %s, unset or empty: set it in the environment or .env)", strings.Join(unset, ", "))
		}
		return &finding.PosError{Pos: yamledit.NodePos(s, n), Msg: msg}
	}
	return &finding.PosError{Pos: finding.Pos{File: src.Path}, Msg: msg}
}

// requiredVarRE finds the variable of compose-go's interpolation error
// ("required variable DOMAIN is missing a value: ...").
var requiredVarRE = regexp.MustCompile(`required variable (\w+) is missing a value`)

// referenceNode returns the first scalar, in the sources in order, under
// the node at keys (as far as they exist) that requires variable name
// (${NAME:?msg}, ${NAME?msg}); for a mapping's value, its key.
func referenceNode(srcs []*Source, keys []string, name string) (*Source, *yaml.Node) {
	ref := regexp.MustCompile(`\$\{` + regexp.QuoteMeta(name) + `:?\?`) // ${NAME:?msg}, ${NAME?msg}: the required forms
	for _, s := range srcs {
		n, key := s.Root, (*yaml.Node)(nil)
		for _, k := range keys {
			kn, v := yamledit.MapGet(n, k)
			if v == nil {
				break
			}
			n, key = v, kn
		}
		if n == s.Root {
			continue
		}
		if n.Kind == yaml.ScalarNode && ref.MatchString(n.Value) {
			return s, key // the path names the value itself: point at its key
		}
		var hit *yaml.Node
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if hit != nil || n == nil {
				return
			}
			if n.Kind == yaml.ScalarNode && ref.MatchString(n.Value) {
				hit = n
			}
			for i, c := range n.Content {
				if n.Kind == yaml.MappingNode && i%2 == 1 && c.Kind == yaml.ScalarNode && ref.MatchString(c.Value) && hit == nil {
					hit = n.Content[i-1] // a mapping's value: its key, as other errors point
				}
				walk(c)
			}
		}
		walk(n)
		if hit != nil {
			return s, hit
		}
	}
	return nil, nil
}

// lookupPath walks keys from the root as far as they exist and returns the
// deepest node found.
func lookupPath(root *yaml.Node, keys []string) *yaml.Node {
	var found *yaml.Node
	n := root
	for _, k := range keys {
		kn, v := yamledit.MapGet(n, k)
		if kn == nil {
			break
		}
		found, n = kn, v
	}
	return found
}

// Interpolate evaluates a raw compose string the way compose does.
func (p *Project) Interpolate(raw string) (string, error) {
	return template.SubstituteWithOptions(raw, func(k string) (string, bool) {
		v, ok := p.Env[k]
		return v, ok
	}, template.WithoutLogging)
}

// ReadInputs reads files named on the command line. Errors are *finding.PosError
// without a position: missing, a directory, larger than MaxFileSize (checked
// before reading), unreadable.
func ReadInputs(paths []string) ([]Input, error) {
	var out []Input
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, &finding.PosError{Pos: finding.Pos{File: p}, Msg: "cannot read: " + strings.TrimPrefix(err.Error(), "stat "+p+": ")}
		}
		if fi.IsDir() {
			return nil, &finding.PosError{Pos: finding.Pos{File: p}, Msg: "is a directory, want a compose file"}
		}
		if fi.Size() > MaxFileSize {
			return nil, yamledit.TooLarge(p)
		}
		b, err := ReadLimited(p)
		if err != nil {
			return nil, &finding.PosError{Pos: finding.Pos{File: p}, Msg: "cannot read: " + err.Error()}
		}
		out = append(out, Input{Path: p, Data: b})
	}
	return out, nil
}
