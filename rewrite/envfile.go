package rewrite

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/compose-spec/compose-go/v2/dotenv"
	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/internal/textedit"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// envVar is one environment variable of a service where its effective value
// is written: a YAML scalar in a compose file, or a line of an env_file.
type envVar struct {
	service string
	key     string
	raw     string // compose interpolation text, references intact, literal $ as $$
	value   string // effective value, as compose computes it
	pos     Pos    // where the value is written (its file: the path for messages and edits)

	// YAML location
	src    *Source
	node   *yaml.Node
	prefix string // "KEY=" in list form
	inFlow bool

	// env_file location
	env *envLine

	// passthrough: a list item "- KEY" or a map entry "KEY:" with no
	// value, which compose fills from its own environment; an edit writes
	// the value in its place.
	passthrough bool
	// ref is the interpolation variable (${ref}) whose env file line this
	// is, when the compose value was only that reference.
	ref string
}

// envLine is a KEY=value line of an env file with the byte range of its
// value text (quotes included).
type envLine struct {
	path       string
	data       []byte
	start, end int
	quote      byte // 0, '\'' or '"'
}

// serviceEnv lists a service's environment variables where their effective
// values are written, following compose precedence: environment: (the last
// -f file that sets a key wins) over env_file: (later files win).
//
// The list is computed once per service (the project does not change
// while it is planned; callers only range over it): most steps walk every
// service's environment, some for each of its values, and a service of
// 30,000 variables took 19.5 s (issue 25).
func (p *project) serviceEnv(name string) []envVar {
	if v, ok := p.envs[name]; ok {
		return v
	}
	if p.envs == nil {
		p.envs = map[string][]envVar{}
	}
	p.envs[name] = p.computeServiceEnv(name)
	return p.envs[name]
}

func (p *project) computeServiceEnv(name string) []envVar {
	var out []envVar
	seen := map[string]bool{}
	for i := len(p.sources) - 1; i >= 0; i-- {
		src := p.sources[i]
		_, svcs := yamledit.OwnKey(src.Root, "services")
		_, node := yamledit.OwnKey(yamledit.Deref(svcs), name)
		if node = yamledit.Deref(node); node == nil {
			continue
		}
		out = p.yamlEnv(name, src, node, seen, out, 0)
	}
	files := p.model.Services[name].EnvFiles
	for i := len(files) - 1; i >= 0; i-- {
		for _, v := range p.envFileVars(name, files[i].Path) {
			if !seen[v.key] {
				seen[v.key] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// yamlEnv adds the environment entries written in one service mapping, then
// those of the service it extends (same file or extends.file), which
// compose merges under the service's own.
func (p *project) yamlEnv(name string, src *Source, node *yaml.Node, seen map[string]bool, out []envVar, depth int) []envVar {
	for _, e := range envEntries(node) {
		if seen[e.key] {
			continue
		}
		seen[e.key] = true
		raw := strings.TrimPrefix(e.node.Value, e.prefix)
		if e.passthrough {
			// Same meaning as KEY: ${KEY}; never edited in place.
			raw = "${" + e.key + "}"
		}
		val, err := p.interpolate(raw)
		if err != nil {
			continue
		}
		if v, ok := p.followRef(name, e.key, raw); ok {
			out = append(out, v)
			continue
		}
		out = append(out, envVar{service: name, key: e.key, raw: raw, value: val, pos: Pos{File: src.Path, Line: e.node.Line, Col: e.node.Column},
			src: src, node: e.node, prefix: e.prefix, inFlow: e.inFlow, passthrough: e.passthrough})
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
func (p *project) extendsSource(path string) *Source {
	for _, s := range p.extSources {
		if s.Path == path {
			return s
		}
	}
	data, err := p.readFile(path)
	if err != nil {
		return nil
	}
	src, err := yamledit.NewSource(path, data)
	if err != nil {
		return nil
	}
	p.extSources = append(p.extSources, src)
	return src
}

var wholeRefRE = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)(\}|:?-)`)

// followRef locates a value written only as a reference (${NAME},
// ${NAME:-default}) in the env file that sets NAME (.env or --env-file), so
// the edit lands where the value is written.
func (p *project) followRef(service, key, raw string) (envVar, bool) {
	if _, ok := usedDefault(raw, p.env); ok {
		return envVar{}, false // the value is the default, written here
	}
	m, err := interp.Mask(raw)
	if err != nil || len(m.Refs) != 1 || utf8.RuneCountInString(m.Value) != 1 {
		return envVar{}, false
	}
	sub := wholeRefRE.FindStringSubmatch(m.Refs[0])
	if sub == nil && regexp.MustCompile(`^\$[A-Za-z_][A-Za-z0-9_]*$`).MatchString(m.Refs[0]) {
		sub = []string{m.Refs[0], strings.TrimPrefix(m.Refs[0], "$")}
	}
	if sub == nil {
		return envVar{}, false
	}
	file, ok := p.origin[sub[1]]
	if !ok {
		return envVar{}, false
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	for _, v := range p.envFileVars(service, file) {
		if v.key == sub[1] {
			v.key, v.ref = key, sub[1]
			return v, true
		}
	}
	return envVar{}, false
}

// displayPath turns an absolute path inside the project into the form the
// user wrote the compose file path in (relative stays relative).
func (p *project) displayPath(abs string) string {
	dir := filepath.Dir(p.sources[0].Path)
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(p.sources[0].Path) {
		return abs
	}
	return filepath.Join(dir, rel)
}

// readFile reads a non-compose file through Options.ReadFile.
func (p *project) readFile(path string) ([]byte, error) {
	if p.read != nil {
		return p.read(path)
	}
	return readRegular(path)
}

// envFileVars parses one env file: values as compose's dotenv computes them,
// positions as written.
func (p *project) envFileVars(service, abs string) []envVar {
	path := p.displayPath(abs)
	if err := p.escapes(path); err != nil {
		p.noteEscape(path, err)
		return nil
	}
	data, err := p.readFile(path)
	if err != nil {
		return nil
	}
	values, err := dotenv.UnmarshalBytesWithLookup(withoutBOM(data), func(k string) (string, bool) {
		v, ok := p.env[k]
		return v, ok
	})
	if err != nil {
		return nil
	}
	var out []envVar
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
		el.path, el.data = path, data
		text := string(data[el.start:el.end])
		var raw string
		switch el.quote {
		case '\'':
			raw = strings.ReplaceAll(text[1:len(text)-1], "$", "$$")
		case '"':
			raw = text[1 : len(text)-1]
		default:
			raw = text
		}
		e := el
		last[key] = len(out)
		out = append(out, envVar{service: service, key: key, raw: raw, value: val, pos: Pos{File: path, Line: n + 1, Col: el.start - (off - len(line)) - bom + 1}, env: &e})
	}
	// The last assignment of a key wins, as in dotenv: keep it alone, in
	// the order of those last assignments.
	kept := out[:0]
	for i, v := range out {
		if last[v.key] == i {
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
func parseEnvLine(line []byte, off int) (envLine, string, bool) {
	s := string(line)
	body := strings.TrimRight(s, "\r\n")
	trimmed := strings.TrimLeft(body, " \t")
	if trimmed == "" || trimmed[0] == '#' {
		return envLine{}, "", false
	}
	lead := len(body) - len(trimmed)
	if rest, ok := strings.CutPrefix(trimmed, "export "); ok {
		lead += len(trimmed) - len(rest)
		trimmed = rest
	}
	eq := strings.IndexByte(trimmed, '=')
	if eq <= 0 {
		return envLine{}, "", false
	}
	key := strings.TrimSpace(trimmed[:eq])
	vstart := lead + eq + 1
	for vstart < len(body) && (body[vstart] == ' ' || body[vstart] == '\t') {
		vstart++
	}
	el := envLine{start: off + vstart}
	v := body[vstart:]
	switch {
	case strings.HasPrefix(v, "'"):
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return envLine{}, "", false
		}
		el.quote, el.end = '\'', el.start+end+2
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
			return envLine{}, "", false
		}
		el.quote, el.end = '"', el.start+end+1
	default:
		end := len(v)
		if i := strings.Index(v, " #"); i >= 0 {
			end = i
		}
		el.end = el.start + len(strings.TrimRight(v[:end], " \t"))
	}
	return el, key, true
}

// setValue writes a new value for an environment variable where it is
// written. m is the masked original raw text, out the rewritten masked value.
// It reports false, with a finding, when the value cannot be written
// exactly.
func (pl *planner) setValue(v envVar, m interp.Masked, out string) bool {
	if v.env == nil {
		return pl.replaceScalar(v.src, v.node, v.prefix, m.Unmask(out), v.inFlow)
	}
	text, err := envFileText(v.env, m, out)
	if err != nil {
		pl.findings.add("UDS111", v.pos, v.service, v.key, err.Error())
		return false
	}
	if err := pl.p.escapes(v.env.path); err != nil {
		pl.refuse(v.env.path, err)
		return false
	}
	pl.editFile(v.env.path, v.env.data, v.env.start, v.env.end, text)
	return true
}

// envFileText renders a value for an env file. A literal $ (junixsocket's
// $FactoryArg) is only safe in single quotes, where dotenv does not
// interpolate; references to other variables must stay outside them.
func envFileText(el *envLine, m interp.Masked, out string) (string, error) {
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
	case el.quote == '\'' || (needsLiteralDollar && !hasRef):
		if strings.ContainsRune(plain, '\'') {
			return "", fmt.Errorf("the new value contains a single quote; write it by hand")
		}
		return "'" + plain + "'", nil
	case needsLiteralDollar:
		return "", fmt.Errorf("the value mixes variable references with a literal $ (junixsocket's $FactoryArg), which an env file cannot hold; set it in the compose file's environment: with $$FactoryArg")
	case el.quote == '"':
		return `"` + strings.ReplaceAll(plain, `"`, `\"`) + `"`, nil
	default:
		if strings.ContainsAny(plain, " #'\"") {
			return `"` + plain + `"`, nil
		}
		return plain, nil
	}
}

// editFile records a replacement in a file that is not a compose file.
func (pl *planner) editFile(path string, data []byte, start, end int, text string) {
	if pl.other.fileEdits == nil {
		pl.other.fileEdits = map[string]*fileEdits{}
	}
	fe := pl.other.fileEdits[path]
	if fe == nil {
		fe = &fileEdits{data: data}
		pl.other.fileEdits[path] = fe
		pl.other.fileOrder = append(pl.other.fileOrder, path)
	}
	for _, e := range fe.edits {
		if e.Start == start && e.End == end {
			return // one env file shared by several services: edit once
		}
	}
	fe.edits = append(fe.edits, textedit.Edit{Start: start, End: end, New: text})
}

type fileEdits struct {
	data  []byte
	edits []textedit.Edit
}

// flushFiles applies the edits of non-compose files and records them.
func (pl *planner) flushFiles() error {
	for _, path := range pl.other.fileOrder {
		fe := pl.other.fileEdits[path]
		out, err := textedit.Apply(fe.data, fe.edits)
		if err != nil {
			return fmt.Errorf("internal error: %s: %w", path, err)
		}
		pl.putFile(path, fe.data, out)
	}
	return nil
}
