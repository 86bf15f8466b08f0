package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/rewrite"
)

// configNames are the names of the config file, looked for in the
// project's folder and each folder above it up to the repository's top
// level (the nearest one counts), as .hadolint.yaml, .shellcheckrc and
// golangci-lint's config are.
var configNames = []string{".uds-migrate.yaml", ".uds-migrate.yml"}

// config is a .uds-migrate.yaml:
//
//	ignore: [UDS102]           # drop these codes everywhere
//	ignore-paths:              # drop codes in some files: a glob relative
//	  legacy/**: [UDS154]      # to the config file's folder (** any depth)
//	  vendor/**: all           # → every code, or a list of codes
//	fail-on: warning           # any other key is a flag's default, spelt
//	consumer:                  # as on the command line (long name); a
//	  - app/DATABASE_URL=pgx   # flag given on the command line wins
//
// A key that names no flag of any command is an error (exit 2) at its
// position; a flag the running command lacks (write: for validate) is
// left out for that command.
type config struct {
	path string // "" when no config file was found
	dir  string // absolute folder of path: ignore-paths globs are relative to it
	// ignore are the codes dropped everywhere.
	ignore []string
	// paths are the ignore-paths entries, in file order.
	paths []pathIgnore
}

type pathIgnore struct {
	glob  string
	codes []string // nil: every code
}

// noConfigFlags cannot come from a config file: they say which config or
// which project to read.
var noConfigFlags = []string{"config", "file", "project-directory"}

// loadConfig finds and reads the config file of the run (--config, else
// the nearest configNames from the project's folder up to the
// repository's top level) and sets the flags it gives defaults for that
// the command line leaves unset. Errors are *rewrite.PosError at the key
// or value.
func loadConfig(c *cli.Context) (*config, error) {
	path := c.String("config")
	if path == "" {
		path = findConfig(configStart(c))
	}
	cfg := &config{}
	if path == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &rewrite.PosError{Pos: rewrite.Pos{File: path}, Msg: "cannot read the config file: " + strings.TrimPrefix(err.Error(), "open "+path+": ")}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	cfg.path, cfg.dir = path, filepath.Dir(abs)
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &rewrite.PosError{Pos: rewrite.Pos{File: path}, Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if len(doc.Content) == 0 {
		return cfg, nil // empty file
	}
	root := doc.Content[0]
	at := func(n *yaml.Node, format string, args ...any) error {
		return &rewrite.PosError{Pos: rewrite.Pos{File: path, Line: n.Line, Col: n.Column}, Msg: fmt.Sprintf(format, args...)}
	}
	if root.Kind != yaml.MappingNode {
		return nil, at(root, "a config file is a mapping of keys (ignore, ignore-paths, flag names)")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "ignore":
			codes, err := configCodes(v, at)
			if err != nil {
				return nil, err
			}
			cfg.ignore = append(cfg.ignore, codes...)
		case "ignore-paths":
			if v.Kind != yaml.MappingNode {
				return nil, at(v, "ignore-paths: want a mapping of path globs to codes (or all)")
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				g, cv := v.Content[j], v.Content[j+1]
				if !doublestar.ValidatePattern(g.Value) {
					return nil, at(g, "ignore-paths: %q is not a valid glob", g.Value)
				}
				pi := pathIgnore{glob: g.Value}
				if !(cv.Kind == yaml.ScalarNode && cv.Value == "all") {
					codes, err := configCodes(cv, at)
					if err != nil {
						return nil, err
					}
					pi.codes = codes
				}
				cfg.paths = append(cfg.paths, pi)
			}
		default:
			if err := setDefault(c, k, v, at); err != nil {
				return nil, err
			}
		}
	}
	return cfg, nil
}

// configStart is the folder the config search starts in: the project
// directory, else the folder of the first file (or the folder itself)
// the command line names, else the working directory.
func configStart(c *cli.Context) string {
	if d := c.String("project-directory"); d != "" {
		return d
	}
	for _, f := range append(c.StringSlice("file"), c.Args().Slice()...) {
		if f == stdinName {
			continue
		}
		if fi, err := os.Stat(f); err == nil && fi.IsDir() {
			return f
		}
		return filepath.Dir(f)
	}
	return "."
}

// findConfig returns the nearest config file at or above dir, stopping at
// the folder that holds .git (the repository's top level); "" for none.
func findConfig(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		for _, n := range configNames {
			p := filepath.Join(d, n)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return relToWD(p)
			}
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
			return ""
		}
	}
}

// relToWD names p relative to the working directory when it is below it.
func relToWD(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}

// configCodes reads a code or a list of codes and checks each against the
// registry.
func configCodes(v *yaml.Node, at func(*yaml.Node, string, ...any) error) ([]string, error) {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.ScalarNode:
		items = []*yaml.Node{v}
	case yaml.SequenceNode:
		items = v.Content
	default:
		return nil, at(v, "want a finding code or a list of codes")
	}
	var out []string
	for _, n := range items {
		code := strings.ToUpper(strings.TrimSpace(n.Value))
		if _, ok := rewrite.LookupCode(code); n.Kind != yaml.ScalarNode || !ok {
			return nil, at(n, "%q: no such finding code (see uds-migrate explain)", n.Value)
		}
		out = append(out, code)
	}
	return out, nil
}

// setDefault gives flag k the config's value v unless the command line
// set it: a scalar, or a list for a repeatable flag.
func setDefault(c *cli.Context, k, v *yaml.Node, at func(*yaml.Node, string, ...any) error) error {
	name := k.Value
	if slices.Contains(noConfigFlags, name) {
		return at(k, "%s: give it on the command line, not in the config file", name)
	}
	if !knownFlag(c.Command.Flags, name) && !knownFlag(c.App.Flags, name) {
		if !anyCommandFlag(c.App, name) {
			return at(k, "%s: no such flag (config keys are ignore, ignore-paths and flags' long names)", name)
		}
		return nil // a flag of another command (write: for validate)
	}
	if c.IsSet(name) {
		return nil // the command line wins
	}
	var vals []*yaml.Node
	switch v.Kind {
	case yaml.ScalarNode:
		vals = []*yaml.Node{v}
	case yaml.SequenceNode:
		vals = v.Content
	default:
		return at(v, "%s: want a value or a list of values", name)
	}
	for _, n := range vals {
		if n.Kind != yaml.ScalarNode {
			return at(n, "%s: want a value", name)
		}
		if err := c.Set(name, n.Value); err != nil {
			return at(n, "%s: %v", name, err)
		}
	}
	return nil
}

// anyCommandFlag reports whether some command (or the top level) has a
// flag of this name.
func anyCommandFlag(app *cli.App, name string) bool {
	if knownFlag(app.Flags, name) {
		return true
	}
	for _, cmd := range app.Commands {
		if knownFlag(cmd.Flags, name) {
			return true
		}
	}
	return false
}

// ignores reports whether the config drops code at file.
func (cfg *config) ignores(code, file string) bool {
	if slices.Contains(cfg.ignore, code) {
		return true
	}
	if len(cfg.paths) == 0 || file == "" || file == stdinName {
		return false
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(cfg.dir, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, p := range cfg.paths {
		if ok, _ := doublestar.Match(p.glob, rel); ok && (p.codes == nil || slices.Contains(p.codes, code)) {
			return true
		}
	}
	return false
}

// suppressRE is an inline suppression comment: `# uds-migrate
// ignore=UDS120` (several codes comma-separated), as hadolint's `#
// hadolint ignore=DL3008`.
var suppressRE = regexp.MustCompile(`#\s*uds-migrate\s+ignore=([A-Za-z0-9_, ]+)`)

// suppressed reports whether a comment on the finding's line, or a
// comment line right above it, names its code. lines reads a file's lines
// (the inputs as read, else the disk).
func suppressed(f rewrite.Finding, lines func(string) []string) bool {
	if f.File == "" || f.Line < 1 {
		return false
	}
	ls := lines(f.File)
	if f.Line > len(ls) {
		return false
	}
	names := func(line string) bool {
		m := suppressRE.FindStringSubmatch(line)
		if m == nil {
			return false
		}
		for _, c := range strings.Split(m[1], ",") {
			if strings.EqualFold(strings.TrimSpace(c), f.Code) {
				return true
			}
		}
		return false
	}
	if names(ls[f.Line-1]) {
		return true
	}
	above := ""
	if f.Line >= 2 {
		above = strings.TrimSpace(ls[f.Line-2])
	}
	return strings.HasPrefix(above, "#") && names(above)
}

// fileLines returns a line reader over the given inputs, falling back to
// the disk (env files and config files findings point into), each file
// read once.
func fileLines(inputs []rewrite.Input) func(string) []string {
	cache := map[string][]string{}
	for _, in := range inputs {
		cache[in.Path] = strings.Split(strings.ReplaceAll(string(in.Data), "\r\n", "\n"), "\n")
	}
	return func(p string) []string {
		if ls, ok := cache[p]; ok {
			return ls
		}
		data, _ := os.ReadFile(p) // unreadable: no comment can suppress
		cache[p] = strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
		return cache[p]
	}
}
