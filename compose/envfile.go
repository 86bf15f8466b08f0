package compose

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/compose-spec/compose-go/v2/dotenv"
	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// EnvVar is one environment variable of a service where its effective value
// is written: a YAML scalar in a compose file, or a line of an env_file.
type EnvVar struct {
	Service string
	Key     string
	Raw     string      // compose interpolation text, references intact, literal $ as $$
	Value   string      // effective value, as compose computes it
	Pos     finding.Pos // where the value is written (its file: the path for messages and edits)

	// YAML location
	Src    *Source
	Node   *yaml.Node
	Prefix string // "KEY=" in list form
	InFlow bool

	// env_file location
	EnvFile *EnvLine

	// Passthrough: a list item "- KEY" or a map entry "KEY:" with no
	// value, which compose fills from its own environment; an edit writes
	// the value in its place.
	Passthrough bool
	// Ref is the interpolation variable (${Ref}) whose env file line this
	// is, when the compose value was only that reference.
	Ref string
}

// EnvLine is a KEY=value line of an env file with the byte range of its
// value text (quotes included).
type EnvLine struct {
	Path       string
	Data       []byte
	Start, End int
	Quote      byte // 0, '\'' or '"'
}

// ServiceEnv lists a service's environment variables where their effective
// values are written, following compose precedence: environment: (the last
// -f file that sets a key wins) over env_file: (later files win).
//
// The list is computed once per service (the project does not change
// while it is planned; callers only range over it): most steps walk every
// service's environment, some for each of its values, and a service of
// 30,000 variables took 19.5 s (issue 25).
func (p *Project) ServiceEnv(name string) []EnvVar {
	if v, ok := p.envs[name]; ok {
		return v
	}
	if p.envs == nil {
		p.envs = map[string][]EnvVar{}
	}
	p.envs[name] = computeServiceEnv(p, name)
	return p.envs[name]
}

func computeServiceEnv(p *Project, name string) []EnvVar {
	var out []EnvVar
	seen := map[string]bool{}
	for i := len(p.Sources) - 1; i >= 0; i-- {
		src := p.Sources[i]
		_, svcs := yamledit.OwnKey(src.Root, "services")
		_, node := yamledit.OwnKey(yamledit.Deref(svcs), name)
		if node = yamledit.Deref(node); node == nil {
			continue
		}
		out = p.yamlEnv(name, src, node, seen, out, 0)
	}
	files := p.Model.Services[name].EnvFiles
	for i := len(files) - 1; i >= 0; i-- {
		for _, v := range p.EnvFileVars(name, files[i].Path) {
			if !seen[v.Key] {
				seen[v.Key] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// yamlEnv adds the environment entries written in one service mapping, then
// those of the service it extends (same file or extends.file), which
// compose merges under the service's own.
func (p *Project) yamlEnv(name string, src *Source, node *yaml.Node, seen map[string]bool, out []EnvVar, depth int) []EnvVar {
	for _, e := range EnvEntries(node) {
		if seen[e.Key] {
			continue
		}
		seen[e.Key] = true
		raw := strings.TrimPrefix(e.Node.Value, e.Prefix)
		if e.Passthrough {
			// Same meaning as KEY: ${KEY}; never edited in place.
			raw = "${" + e.Key + "}"
		}
		val, err := p.Interpolate(raw)
		if err != nil {
			continue
		}
		if v, ok := p.followRef(name, e.Key, raw); ok {
			out = append(out, v)
			continue
		}
		out = append(out, EnvVar{Service: name, Key: e.Key, Raw: raw, Value: val, Pos: finding.Pos{File: src.Path, Line: e.Node.Line, Col: e.Node.Column},
			Src: src, Node: e.Node, Prefix: e.Prefix, InFlow: e.InFlow, Passthrough: e.Passthrough})
	}
	if depth > 8 {
		return out
	}
	_, ext := yamledit.OwnKey(node, "extends")
	if ext = yamledit.Deref(ext); ext == nil {
		return out
	}
	base, file := ext.Value, ""
	if ext.Kind == yaml.MappingNode {
		_, b := yamledit.OwnKey(ext, "service")
		_, f := yamledit.OwnKey(ext, "file")
		if b == nil {
			return out
		}
		base = b.Value
		if f != nil {
			file = f.Value
		}
	}
	bsrc := src
	if file != "" {
		if bsrc = p.extendsSource(filepath.Join(filepath.Dir(src.Path), file)); bsrc == nil {
			return out
		}
	}
	_, svcs := yamledit.OwnKey(bsrc.Root, "services")
	_, bnode := yamledit.OwnKey(yamledit.Deref(svcs), base)
	if bnode = yamledit.Deref(bnode); bnode == nil {
		return out
	}
	return p.yamlEnv(name, bsrc, bnode, seen, out, depth+1)
}

// extendsSource parses a file named by extends.file once; edits to it are
// written like any other file the migration changes.
func (p *Project) extendsSource(path string) *Source {
	for _, s := range p.ExtSources {
		if s.Path == path {
			return s
		}
	}
	data, err := p.ReadFile(path)
	if err != nil {
		return nil
	}
	src, err := yamledit.NewSource(path, data)
	if err != nil {
		return nil
	}
	p.ExtSources = append(p.ExtSources, src)
	return src
}

var wholeRefRE = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)(\}|:?-|:?\?)`)

// followRef locates a value written only as a reference (${NAME},
// ${NAME:-default}, ${NAME:?error}: the variable's value when set) in the env file that sets NAME (.env or --env-file), so
// the edit lands where the value is written.
func (p *Project) followRef(service, key, raw string) (EnvVar, bool) {
	if _, ok := UsedDefault(raw, p.Env); ok {
		return EnvVar{}, false // the value is the default, written here
	}
	m, err := interp.Mask(raw)
	if err != nil || len(m.Refs) != 1 || utf8.RuneCountInString(m.Value) != 1 {
		return EnvVar{}, false
	}
	sub := wholeRefRE.FindStringSubmatch(m.Refs[0])
	if sub == nil && regexp.MustCompile(`^\$[A-Za-z_][A-Za-z0-9_]*$`).MatchString(m.Refs[0]) {
		sub = []string{m.Refs[0], strings.TrimPrefix(m.Refs[0], "$")}
	}
	if sub == nil {
		return EnvVar{}, false
	}
	file, ok := p.Origin[sub[1]]
	if !ok {
		return EnvVar{}, false
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	for _, v := range p.EnvFileVars(service, file) {
		if v.Key == sub[1] {
			v.Key, v.Ref = key, sub[1]
			return v, true
		}
	}
	return EnvVar{}, false
}

// DisplayPath turns an absolute path into the form the user wrote the
// compose file path in: relative stays relative, to the compose file's
// folder as given (a file of a build context above it is ../stuff/x.json,
// as every other finding's path), absolute stays absolute.
func (p *Project) DisplayPath(abs string) string {
	dir := filepath.Dir(p.Sources[0].Path)
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil || filepath.IsAbs(p.Sources[0].Path) {
		return abs
	}
	return filepath.Join(dir, rel)
}

// ReadFile reads a non-compose file through Options.ReadFile.
func (p *Project) ReadFile(path string) ([]byte, error) {
	if p.read != nil {
		return p.read(path)
	}
	return ReadRegular(path)
}

// EnvFileVars parses one env file: values as compose's dotenv computes them,
// positions as written.
func (p *Project) EnvFileVars(service, abs string) []EnvVar {
	path := p.DisplayPath(abs)
	if err := p.Escapes(path); err != nil {
		p.noteEscape(path, err)
		return nil
	}
	data, err := p.ReadFile(path)
	if err != nil {
		return nil
	}
	values, err := dotenv.UnmarshalBytesWithLookup(withoutBOM(data), func(k string) (string, bool) {
		v, ok := p.Env[k]
		return v, ok
	})
	if err != nil {
		return nil
	}
	var out []EnvVar
	last := map[string]int{} // key → index in out of its last assignment
	off := 0
	for n, line := range bytes.SplitAfter(data, []byte("\n")) {
		// A BOM before the first key is not part of it (nor of the
		// column); edits leave it where it is.
		bom := 0
		if n == 0 {
			bom = len(line) - len(withoutBOM(line))
		}
		el, key, ok := parseEnvLine(line[bom:], off+bom)
		off += len(line)
		if !ok {
			continue
		}
		val, ok := values[key]
		if !ok {
			continue
		}
		el.Path, el.Data = path, data
		text := string(data[el.Start:el.End])
		var raw string
		switch el.Quote {
		case '\'':
			raw = strings.ReplaceAll(text[1:len(text)-1], "$", "$$")
		case '"':
			raw = text[1 : len(text)-1]
		default:
			raw = text
		}
		e := el
		last[key] = len(out)
		out = append(out, EnvVar{Service: service, Key: key, Raw: raw, Value: val, Pos: finding.Pos{File: path, Line: n + 1, Col: el.Start - (off - len(line)) - bom + 1}, EnvFile: &e})
	}
	// The last assignment of a key wins, as in dotenv: keep it alone, in
	// the order of those last assignments.
	kept := out[:0]
	for i, v := range out {
		if last[v.Key] == i {
			kept = append(kept, v)
		}
	}
	return kept
}

// withoutBOM is an env file's text after a UTF-8 byte order mark, which
// compose's dotenv skips when it reads a file itself
// (dotenv.parseWithLookup) but not in UnmarshalBytesWithLookup.
func withoutBOM(data []byte) []byte {
	return bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
}

// parseEnvLine finds KEY and the value range in one env file line starting
// at byte off. Multi-line quoted values are not editable and not returned.
func parseEnvLine(line []byte, off int) (EnvLine, string, bool) {
	s := string(line)
	body := strings.TrimRight(s, "\r\n")
	trimmed := strings.TrimLeft(body, " \t")
	if trimmed == "" || trimmed[0] == '#' {
		return EnvLine{}, "", false
	}
	lead := len(body) - len(trimmed)
	if rest, ok := strings.CutPrefix(trimmed, "export "); ok {
		lead += len(trimmed) - len(rest)
		trimmed = rest
	}
	eq := strings.IndexByte(trimmed, '=')
	if eq <= 0 {
		return EnvLine{}, "", false
	}
	key := strings.TrimSpace(trimmed[:eq])
	vstart := lead + eq + 1
	for vstart < len(body) && (body[vstart] == ' ' || body[vstart] == '\t') {
		vstart++
	}
	el := EnvLine{Start: off + vstart}
	v := body[vstart:]
	switch {
	case strings.HasPrefix(v, "'"):
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return EnvLine{}, "", false
		}
		el.Quote, el.End = '\'', el.Start+end+2
	case strings.HasPrefix(v, `"`):
		end := -1
		for i := 1; i < len(v); i++ {
			if v[i] == '\\' {
				i++
				continue
			}
			if v[i] == '"' {
				end = i
				break
			}
		}
		if end < 0 {
			return EnvLine{}, "", false
		}
		el.Quote, el.End = '"', el.Start+end+1
	default:
		end := len(v)
		if i := strings.Index(v, " #"); i >= 0 {
			end = i
		}
		el.End = el.Start + len(strings.TrimRight(v[:end], " \t"))
	}
	return el, key, true
}

var defaultRefRE = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)(:?-)((?s).*)\}$`)

// DefaultRef is a whole-value reference whose default compose uses.
type DefaultRef struct {
	Name, Op, Def string
}

// UsedDefault returns the reference raw consists of when compose takes its
// default with the interpolation environment env.
func UsedDefault(raw string, env map[string]string) (DefaultRef, bool) {
	m, err := interp.Mask(raw)
	if err != nil || len(m.Refs) != 1 || m.Refs[0] != raw {
		return DefaultRef{}, false
	}
	sub := defaultRefRE.FindStringSubmatch(raw)
	if sub == nil {
		return DefaultRef{}, false
	}
	v, set := env[sub[1]]
	if set && (sub[2] == "-" || v != "") {
		return DefaultRef{}, false
	}
	return DefaultRef{Name: sub[1], Op: sub[2], Def: sub[3]}, true
}

// Writable returns why SetValue cannot write v where it is written, or
// nil: a compose value whose bytes cannot be located exactly (a block
// scalar, | or >, or a value over several lines: yamledit.ScalarSpan). It
// lets a migration leave such a value, and the mount that would go with
// it, alone before it edits anything. An env file line's quoting depends
// on the new value and is judged by SetValue.
func Writable(v EnvVar) error {
	if v.EnvFile != nil || v.Node == nil || v.Src == nil {
		return nil
	}
	_, err := v.Src.ScalarSpan(v.Node, v.InFlow)
	return err
}

// SetValue writes a new value for an environment variable where it is
// written. m is the masked original raw text, out the rewritten masked value.
// It reports false, with a finding, when the value cannot be written
// exactly.
func (e *Editor) SetValue(v EnvVar, m interp.Masked, out string) bool {
	if v.EnvFile == nil {
		return !e.Failed(e.YAML(v.Src).ReplaceScalar(v.Node, v.Prefix+m.Unmask(out), v.InFlow), v.Service, v.Key)
	}
	text, err := envFileText(v.EnvFile, m, out)
	if err != nil {
		e.rep.Add("UDS111", v.Pos, v.Service, v.Key, v.Service+"/"+v.Key+": "+err.Error())
		return false
	}
	if err := e.p.Escapes(v.EnvFile.Path); err != nil {
		e.Refuse(v.EnvFile.Path, err)
		return false
	}
	e.EditFile(v.EnvFile.Path, v.EnvFile.Data, v.EnvFile.Start, v.EnvFile.End, text)
	return true
}

// envFileText renders a value for an env file. A literal $ (junixsocket's
// $FactoryArg) is only safe in single quotes, where dotenv does not
// interpolate; references to other variables must stay outside them.
func envFileText(el *EnvLine, m interp.Masked, out string) (string, error) {
	hasRef := false
	for _, r := range out {
		if ref, ok := m.Ref(r); ok && ref != "$" {
			hasRef = true
		}
	}
	var b strings.Builder
	for _, r := range out {
		if ref, ok := m.Ref(r); ok {
			b.WriteString(ref)
			continue
		}
		b.WriteRune(r)
	}
	plain := b.String() // references as written, literal $ bare
	needsLiteralDollar := strings.ContainsRune(out, '$')
	switch {
	case el.Quote == '\'' || (needsLiteralDollar && !hasRef):
		if strings.ContainsRune(plain, '\'') {
			return "", fmt.Errorf("the new value contains a single quote; write it by hand")
		}
		return "'" + plain + "'", nil
	case needsLiteralDollar:
		return "", fmt.Errorf("the value mixes variable references with a literal $ (junixsocket's $FactoryArg), which an env file cannot hold; set it in the compose file's environment: with $$FactoryArg")
	case el.Quote == '"':
		return `"` + strings.ReplaceAll(plain, `"`, `\"`) + `"`, nil
	default:
		if strings.ContainsAny(plain, " #'\"") {
			return `"` + plain + `"`, nil
		}
		return plain, nil
	}
}

// RemoveEnv deletes the variable v where it is written, a one-line block
// mapping entry or list item or an env file line, and reports whether it
// did; a value elsewhere (a flow mapping, a value over several lines) is
// left for the user (UDS111, saying why: reason).
func (e *Editor) RemoveEnv(v EnvVar, reason string) bool {
	switch {
	case v.EnvFile != nil:
		d := v.EnvFile.Data
		start := bytes.LastIndexByte(d[:v.EnvFile.Start], '\n') + 1
		end := len(d)
		if i := bytes.IndexByte(d[v.EnvFile.End:], '\n'); i >= 0 {
			end = v.EnvFile.End + i + 1
		}
		e.EditFile(v.EnvFile.Path, d, start, end, "")
	case v.Node != nil && !v.InFlow && Writable(v) == nil:
		e.YAML(v.Src).DeleteLines(v.Node.Line, v.Node.Line)
	default:
		e.rep.Add("UDS111", v.Pos, v.Service, v.Key, "remove "+v.Key+" by hand: "+reason)
		return false
	}
	return true
}

// AddEnvAfter adds KEY=value right after the variable v, in v's own form
// (map entry, list item or env file line), and reports whether it did; a
// value in a flow mapping or on an env file's last line without a line
// break is left for the user (UDS111, saying why: reason).
func (e *Editor) AddEnvAfter(v EnvVar, key, value, reason string) bool {
	switch {
	case v.EnvFile != nil:
		end := bytes.IndexByte(v.EnvFile.Data[v.EnvFile.End:], '\n')
		if end < 0 {
			e.rep.Add("UDS111", v.Pos, v.Service, key, "add "+key+"="+value+" by hand: "+reason)
			return false
		}
		at := v.EnvFile.End + end + 1
		eol := "\n"
		if at >= 2 && v.EnvFile.Data[at-2] == '\r' {
			eol = "\r\n"
		}
		e.EditFile(v.EnvFile.Path, v.EnvFile.Data, at, at, key+"="+value+eol)
	case v.Node != nil && !v.InFlow:
		ind := strings.Repeat(" ", v.Src.IndentOf(v.Node.Line))
		text := ind + key + ": \"" + value + "\"\n"
		if v.Prefix != "" {
			text = ind + "- " + key + "=" + value + "\n"
		}
		e.YAML(v.Src).InsertAfterLine(v.Node.Line, text)
	default:
		e.rep.Add("UDS111", v.Pos, v.Service, key, "add "+key+"="+value+" by hand: "+reason)
		return false
	}
	return true
}
