package compose

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/template"
	"github.com/compose-spec/compose-go/v2/types"
	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/jdbc"
	"github.com/uds-migrate/uds-migrate/libpq"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// notCompose explains a first file without a top-level services: key,
// naming the common mix-up of a Kubernetes manifest.
func notCompose(src *Source) error {
	msg := "not a compose file: no top-level services:"
	_, api := yamledit.OwnKey(src.Root, "apiVersion")
	_, kind := yamledit.OwnKey(src.Root, "kind")
	if api != nil && kind != nil && api.Kind == yaml.ScalarNode && kind.Kind == yaml.ScalarNode {
		msg = fmt.Sprintf("not a compose file: a Kubernetes manifest (apiVersion: %s, kind: %s); want a compose file with services:", api.Value, kind.Value)
	}
	return &finding.PosError{Pos: finding.Pos{File: src.Path, Line: src.Root.Line, Col: src.Root.Column}, Msg: msg}
}

var (
	// "validating networks.n1 additional properties 'drivr' not allowed";
	// the path is empty for a top-level key.
	extraPropRE = regexp.MustCompile(`validating (\S*) ?additional properties '([^']+)' not allowed`)
	// "validating volumes must be a mapping"
	validatingRE = regexp.MustCompile(`validating (\S+) `)
	// a file compose-go could not open: extends: file:, include:, env_file:
	// compose-go's "include cycle detected:\nA\n include B\n include A":
	// B, the file the cycle's first include names.
	includeCycleRE = regexp.MustCompile(`include cycle detected:\s*\n[^\n]*\n include (\S+)`)
	// compose-go's "Circular reference:\n  app in c.yml\n  extends a in
	// e.yml ...": each service of the chain.
	extendsChainRE = regexp.MustCompile(`(?m)^\s+(?:extends )?(\S+) in \S+$`)
	missingRE      = []*regexp.Regexp{
		regexp.MustCompile(`open (.+?): no such file or directory`),
		regexp.MustCompile(`env file (.+?) not found`),
		regexp.MustCompile(`open (.+?): permission denied`),
	}
)

// errorNode finds where in the sources a compose-go error message points
// when it names no services.* path: a schema path outside services:, or a
// file it could not open (the scalar that names it). nil when not found.
func errorNode(srcs []*Source, msg string) (*Source, *yaml.Node) {
	if m := extraPropRE.FindStringSubmatch(msg); m != nil {
		keys := []string{m[2]}
		if m[1] != "" {
			keys = append(strings.Split(m[1], "."), m[2])
		}
		for _, s := range srcs {
			if n := lookupPath(s.Root, keys); n != nil && n.Value == m[2] {
				return s, n
			}
		}
	}
	if m := validatingRE.FindStringSubmatch(msg); m != nil {
		for _, s := range srcs {
			if n := lookupPath(s.Root, strings.Split(m[1], ".")); n != nil {
				return s, n
			}
		}
	}
	for _, re := range missingRE {
		if m := re.FindStringSubmatch(msg); m != nil {
			return fileNode(srcs, filepath.Clean(m[1]))
		}
	}
	// A cycle: the include entry that starts it, or the extends of the
	// first service in the chain that a compose file given holds.
	if m := includeCycleRE.FindStringSubmatch(msg); m != nil {
		return fileNode(srcs, filepath.Clean(m[1]))
	}
	if strings.Contains(msg, "Circular reference") {
		for _, m := range extendsChainRE.FindAllStringSubmatch(msg, -1) {
			for _, s := range srcs {
				_, svcs := yamledit.OwnKey(s.Root, "services")
				_, svc := yamledit.OwnKey(yamledit.Deref(svcs), m[1])
				if k, _ := yamledit.MapGet(yamledit.Deref(svc), "extends"); k != nil {
					return s, k
				}
			}
		}
	}
	return nil, nil
}

// fileNode finds the scalar that names file abs, relative to its compose
// file's directory (where compose resolves extends, include and env_file).
func fileNode(srcs []*Source, abs string) (*Source, *yaml.Node) {
	for _, s := range srcs {
		dir, err := filepath.Abs(filepath.Dir(s.Path))
		if err != nil {
			continue
		}
		var hit *yaml.Node
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if hit != nil {
				return
			}
			if n.Kind == yaml.ScalarNode && n.Value != "" && !strings.ContainsAny(n.Value, "\n$") {
				p := n.Value
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				if filepath.Clean(p) == abs {
					hit = n
				}
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(s.Root)
		if hit != nil {
			return s, hit
		}
	}
	return nil, nil
}

var (
	// compose-go quotes the value it could not interpolate on a line of
	// its own after this hint.
	interpHint = "You may need to escape any $ with another $."
	// "Invalid template: \"VALUE\"" (a value in .env), yaml's "cannot
	// construct !!str `VALUE` as a !!int": quoted values.
	quotedValueRE = regexp.MustCompile("Invalid template: \".*\"|`[^`]*`")
	// dotenv errors: "failed to read FILE: line N: unterminated quoted value VALUE",
	// or "FILE: line N: ..." from the interpolation env file (.env).
	envLineRE = regexp.MustCompile(`(failed to read .*?: line \d+: |line \d+: unterminated quoted value )([^"'\x60]*)["'\x60].*`)
)

// HideValues removes from a compose-go error message the values it quotes:
// an environment value may be a password, and the position (or the env
// file's line number) already says where to look. Connection URLs left in
// the message lose their passwords.
func HideValues(msg string) string {
	if i := strings.Index(msg, interpHint); i >= 0 {
		msg = msg[:i+len(interpHint)] + " (value not shown)"
	}
	msg = envLineRE.ReplaceAllString(msg, "${1}${2}(value not shown)")
	msg = quotedValueRE.ReplaceAllStringFunc(msg, func(q string) string {
		if strings.HasPrefix(q, "Invalid template") {
			return "Invalid template: an unterminated ${ (value not shown)"
		}
		return "`...`"
	})
	fields := strings.Fields(msg)
	for _, f := range fields {
		if r := libpq.Redact(jdbc.Redact(f)); r != f {
			msg = strings.ReplaceAll(msg, f, r)
		}
	}
	return msg
}

// loadModelSafely is loadModel with compose-go's panics turned into an
// error: FuzzMigrate found compose-go v2.16.2 panicking on input it should
// refuse (env_file: [{path: null}], in override.envFileIndexer), and a
// crash must not be the answer to a bad file. The panic value is kept in
// the message; it quotes no file content.
func loadModelSafely(ctx context.Context, inputs []Input, opts LoadOptions) (model *types.Project, env, origin map[string]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			model, env, origin = nil, nil, nil
			err = fmt.Errorf("compose-go failed on this project (%v): a value of an unexpected type? (compose-go bug; please report it with the file)", r)
		}
	}()
	return loadModel(ctx, inputs, opts)
}

// portErrorRE: compose-go's errors on a ports: entry, which name neither
// the service nor the file ("No port specified: :<empty>", "Invalid
// hostPort: ...", "Invalid containerPort: ...", "Invalid proto: ...").
var portErrorRE = regexp.MustCompile(`No port specified|Invalid (?:hostPort|containerPort|proto|ip address|port)|invalid port`)

// portErrorNode finds the first services.*.ports entry (short syntax) that
// compose-go refuses once interpolated with env, and the variables it
// reads that env leaves unset or empty (the usual cause: "${DB_PORT}:5432"
// without a .env). nil when msg is not a port error or no entry fails.
func portErrorNode(srcs []*Source, env map[string]string, msg string) (*Source, *yaml.Node, []string) {
	if !portErrorRE.MatchString(msg) {
		return nil, nil, nil
	}
	for _, s := range srcs {
		_, svcs := yamledit.OwnKey(s.Root, "services")
		svcs = yamledit.Deref(svcs)
		if svcs == nil || svcs.Kind != yaml.MappingNode {
			continue
		}
		for i := 1; i < len(svcs.Content); i += 2 {
			_, ports := yamledit.MapGet(yamledit.Deref(svcs.Content[i]), "ports")
			ports = yamledit.Deref(ports)
			if ports == nil || ports.Kind != yaml.SequenceNode {
				continue
			}
			for _, e := range ports.Content {
				if e.Kind != yaml.ScalarNode {
					continue
				}
				var unset []string
				v, err := template.SubstituteWithOptions(e.Value, func(k string) (string, bool) {
					val, ok := env[k]
					if val == "" && !slices.Contains(unset, k) {
						unset = append(unset, k)
					}
					return val, ok
				}, template.WithoutLogging)
				if err != nil {
					continue
				}
				if _, err := types.ParsePortConfig(v); err != nil {
					return s, e, unset
				}
			}
		}
	}
	return nil, nil, nil
}
