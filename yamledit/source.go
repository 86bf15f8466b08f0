package yamledit

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/uds-migrate/uds-migrate/finding"
	"gopkg.in/yaml.v3"
)

// Source is one compose file as read: its bytes, where each line starts, and
// its yaml.v3 node tree (for positions only; it is never re-encoded).
type Source struct {
	Path string // as the user named it, for messages
	Data []byte
	Root *yaml.Node // the mapping at the top of the first document

	lineStart []int // byte offset of each line's first byte, index line-1
	eol       string
	bom       int // length of a leading UTF-8 byte order mark
}

// NewSource parses data (UTF-8 YAML, one document, at most MaxFileSize
// bytes) as a compose file's node tree. Errors are *PosError, with a line and
// column wherever one exists: bad encoding, YAML syntax, duplicate keys,
// nesting deeper than compose can load in reasonable time, an alias bomb, a
// top level that is not a mapping.
func NewSource(path string, data []byte) (*Source, error) {
	if err := checkBytes(path, data); err != nil {
		return nil, err
	}
	s := &Source{Path: path, Data: data, eol: "\n"}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		s.bom = 3
	}
	s.lineStart = []int{0}
	for i, c := range data {
		if c == '\n' {
			s.lineStart = append(s.lineStart, i+1)
		}
	}
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		s.eol = "\r\n"
	}
	doc, err := s.parse()
	if err != nil {
		return nil, err
	}
	if doc == nil || isEmptyDoc(doc) {
		msg := "empty file: not a compose file"
		if len(bytes.TrimSpace(data[s.bom:])) > 0 {
			msg = "no YAML content, only comments (or ---): not a compose file"
		}
		return nil, &finding.PosError{Pos: finding.Pos{File: path, Line: 1, Col: 1}, Msg: msg}
	}
	if err := checkTree(path, doc); err != nil {
		return nil, err
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &finding.PosError{Pos: finding.Pos{File: path, Line: root.Line, Col: root.Column}, Msg: fmt.Sprintf("not a compose file: top level is a %s, want a mapping with services:", KindName(root))}
	}
	if root.Style&yaml.FlowStyle != 0 {
		return nil, &finding.PosError{Pos: finding.Pos{File: path, Line: root.Line, Col: root.Column}, Msg: "flow-style compose files ({...}) are not supported"}
	}
	// New top-level keys are written at column 1, which is only part of
	// the document when its own keys are there (FuzzMigrate e5261f36: a
	// tag before the first key indents the whole mapping).
	if root.Style&yaml.TaggedStyle != 0 || root.Anchor != "" || (len(root.Content) > 0 && root.Content[0].Column != 1) {
		return nil, &finding.PosError{Pos: finding.Pos{File: path, Line: root.Line, Col: root.Column}, Msg: "the top-level keys must start at column 1, with no tag or anchor before them"}
	}
	s.Root = root
	return s, nil
}

// parse decodes the one YAML document in s.Data; nil when there is none.
// A second document is refused: compose merges the documents of a file, but
// positions and edits here are for one.
func (s *Source) parse() (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(s.Data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err == io.EOF {
		return nil, nil
	} else if err != nil {
		return nil, s.syntaxError(err)
	}
	for {
		var next yaml.Node
		switch err := dec.Decode(&next); {
		case err == io.EOF:
			return &doc, nil
		case err != nil:
			return nil, s.syntaxError(err)
		case !isEmptyDoc(&next):
			n := next.Content[0]
			return nil, &finding.PosError{Pos: NodePos(s, n), Msg: "a second YAML document in one file: uds-migrate edits single-document compose files (split it into several -f files)"}
		}
	}
}

// isEmptyDoc reports whether doc holds nothing: a bare "---", which
// yaml.v3 reads as a null scalar with no text.
func isEmptyDoc(doc *yaml.Node) bool {
	if len(doc.Content) != 1 {
		return len(doc.Content) == 0
	}
	n := doc.Content[0]
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == ""
}

// syntaxError is yamlError, pointing at the tab when a tab in the
// indentation is what yaml.v3 tripped over (it reports only the line).
func (s *Source) syntaxError(err error) error {
	pe, ok := yamlError(s.Path, err).(*finding.PosError)
	if !ok {
		return yamlError(s.Path, err)
	}
	if line, col := syntaxPos(s.Data); line > 0 {
		pe.Line, pe.Col = line, col
	}
	if pe.Line == 0 {
		return pe
	}
	l := s.Line(pe.Line)
	indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
	if i := strings.IndexByte(indent, '\t'); i >= 0 {
		pe.Col = i + 1
		pe.Msg += " (a tab in the indentation: YAML indents with spaces only)"
	}
	return pe
}

// WithEOL rewrites "\n" line endings in generated text to the file's own.
func (s *Source) WithEOL(text string) string {
	if s.eol == "\n" {
		return text
	}
	return strings.ReplaceAll(text, "\n", s.eol)
}

// Lines is the number of lines in the file (a final line without newline
// counts).
func (s *Source) Lines() int { return len(s.lineStart) }

// DocEndLine is the last line of the document: the file's last line, or the
// line before a document end marker ("...") or an empty second document
// ("---") at column 1, so text appended to the document stays in it.
func (s *Source) DocEndLine() int {
	for n := 1; n <= s.Lines(); n++ {
		l := s.Line(n)
		if n == 1 && s.bom > 0 {
			l = l[s.bom:]
		}
		for _, m := range []string{"...", "---"} {
			if rest, ok := strings.CutPrefix(l, m); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') && n > s.Root.Line {
				return n - 1
			}
		}
	}
	return s.Lines()
}

// Line returns Line n (1-based) without its Line ending.
func (s *Source) Line(n int) string {
	if n < 1 || n > len(s.lineStart) {
		return ""
	}
	start, end := s.lineStart[n-1], len(s.Data)
	if n < len(s.lineStart) {
		end = s.lineStart[n]
	}
	return strings.TrimRight(string(s.Data[start:end]), "\r\n")
}

// Offset converts a yaml.v3 position (1-based line, 1-based column counted in
// characters) to a byte Offset.
func (s *Source) Offset(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(s.lineStart) {
		return len(s.Data)
	}
	off := s.lineStart[line-1]
	if line == 1 {
		off += s.bom
	}
	for i := 1; i < col && off < len(s.Data); i++ {
		_, w := utf8.DecodeRune(s.Data[off:])
		off += w
	}
	return off
}

// LineEndOffset is the offset just past line n's line ending (the start of
// line n+1), or the end of data.
func (s *Source) LineEndOffset(n int) int {
	if n >= len(s.lineStart) {
		return len(s.Data)
	}
	return s.lineStart[n]
}

// Position converts a byte offset back to line and column.
func (s *Source) Position(off int) (line, col int) {
	line = 1
	for line < len(s.lineStart) && s.lineStart[line] <= off {
		line++
	}
	start := s.lineStart[line-1]
	if line == 1 {
		start += s.bom
	}
	return line, utf8.RuneCount(s.Data[start:off]) + 1
}

// IndentOf is the number of leading spaces of line n.
func (s *Source) IndentOf(n int) int {
	l := s.Line(n)
	return len(l) - len(strings.TrimLeft(l, " "))
}

// IsBlankOrComment reports whether line n holds nothing but white space or a
// comment.
func (s *Source) IsBlankOrComment(n int) bool {
	t := strings.TrimSpace(s.Line(n))
	return t == "" || strings.HasPrefix(t, "#")
}

// BlockEnd returns the last line that belongs to the block entry starting on
// line first whose indicator (key or dash) sits at 1-based column col.
// Continuation lines are indented deeper; with dashContinues, lines at the
// same column that start with "- " also belong (a block sequence written at
// its key's indentation). Trailing blank and comment lines are left out: they
// belong to what follows.
func (s *Source) BlockEnd(first, col int, dashContinues bool) int {
	last := first
	for n := first + 1; n <= s.Lines(); n++ {
		if s.IsBlankOrComment(n) {
			continue
		}
		ind := s.IndentOf(n)
		rest := strings.TrimLeft(s.Line(n), " ")
		if ind > col-1 || (dashContinues && ind == col-1 && (rest == "-" || strings.HasPrefix(rest, "- "))) {
			last = n
			continue
		}
		break
	}
	// A comment indented like the block's content right after it (a
	// commented-out entry) stays with the block: what is inserted after the
	// block goes below it.
	for n := last + 1; n <= s.Lines(); n++ {
		t := strings.TrimSpace(s.Line(n))
		if !strings.HasPrefix(t, "#") || s.IndentOf(n) <= col-1 {
			break
		}
		last = n
	}
	return last
}

// yamlError turns a yaml.v3 error ("yaml: line 3: did not find ...") into a
// PosError.
func yamlError(path string, err error) error {
	msg := err.Error()
	var line int
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
		return &finding.PosError{Pos: finding.Pos{File: path, Line: line, Col: 1}, Msg: "invalid YAML: " + msg}
	}
	if n, _ := fmt.Sscanf(msg, "unmarshal errors:\n  line %d:", &line); n == 1 {
		return &finding.PosError{Pos: finding.Pos{File: path, Line: line, Col: 1}, Msg: "invalid YAML: " + msg}
	}
	return &finding.PosError{Pos: finding.Pos{File: path}, Msg: "invalid YAML: " + msg}
}

func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "mapping"
}

// MapGet returns the value node for key in mapping m, following `<<` merge
// keys (an alias or a list of aliases) the way YAML 1.1 merges do: keys
// written in m win, then earlier merge sources. keyNode is nil when absent.
func MapGet(m *yaml.Node, key string) (keyNode, val *yaml.Node) {
	if m == nil {
		return nil, nil
	}
	m = Deref(m)
	if m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Tag != "!!merge" {
			return m.Content[i], m.Content[i+1]
		}
	}
	for _, src := range MergeSources(m) {
		if k, v := MapGet(src, key); k != nil {
			return k, v
		}
	}
	return nil, nil
}

// MergeSources lists the mappings merged into m by `<<`, in precedence order.
func MergeSources(m *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !IsMergeKey(m.Content[i]) {
			continue
		}
		v := m.Content[i+1]
		switch Deref(v).Kind {
		case yaml.MappingNode:
			out = append(out, Deref(v))
		case yaml.SequenceNode:
			for _, it := range Deref(v).Content {
				out = append(out, Deref(it))
			}
		}
	}
	return out
}

func IsMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "!!merge" || k.Tag == "")
}

func Deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// OwnKey returns the value node for key written directly in m (no merges).
func OwnKey(m *yaml.Node, key string) (keyNode, val *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && !IsMergeKey(m.Content[i]) {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// LastContentLine is the last line that is not blank.
func (s *Source) LastContentLine() int {
	for n := s.Lines(); n > 0; n-- {
		if strings.TrimSpace(s.Line(n)) != "" {
			return n
		}
	}
	return 0
}
