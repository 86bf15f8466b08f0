package yamledit

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Span is a byte range [Start, End) of one file.
type Span struct{ Start, End int }

// ScalarSpan finds the source text of scalar n: from its first character (a
// quote for quoted styles) to just past its last. It checks that the text
// decodes back to n.Value, so an edit can never land on the wrong bytes;
// block scalars (| and >) and multi-line plain scalars are refused.
func (s *Source) ScalarSpan(n *yaml.Node, inFlow bool) (Span, error) {
	if n.Kind != yaml.ScalarNode {
		return Span{}, fmt.Errorf("not a scalar")
	}
	start := s.Offset(n.Line, n.Column)
	start = skipProperties(s.Data, start)
	var end int
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		end = closeDouble(s.Data, start)
	case n.Style&yaml.SingleQuotedStyle != 0:
		end = closeSingle(s.Data, start)
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return Span{}, fmt.Errorf("block scalar (| or >) values are not edited")
	default:
		end = plainEnd(s.Data, start, inFlow)
	}
	if end < 0 && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		return Span{}, fmt.Errorf("quoted values over several lines are not edited")
	}
	if end < 0 {
		return Span{}, fmt.Errorf("cannot find the end of the value")
	}
	var check yaml.Node
	text := string(s.Data[start:end])
	if err := yaml.Unmarshal([]byte("k: "+text), &check); err != nil || len(check.Content) == 0 || len(check.Content[0].Content) < 2 || check.Content[0].Content[1].Value != n.Value {
		return Span{}, fmt.Errorf("value spans several lines; edit it by hand")
	}
	return Span{start, end}, nil
}

// skipProperties moves past an anchor (&a) or tag (!t) written before a value.
func skipProperties(b []byte, i int) int {
	for i < len(b) && (b[i] == '&' || b[i] == '!') {
		for i < len(b) && b[i] != ' ' && b[i] != '\n' {
			i++
		}
		for i < len(b) && b[i] == ' ' {
			i++
		}
	}
	return i
}

func closeDouble(b []byte, start int) int {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		case '\n':
			return -1
		}
	}
	return -1
}

func closeSingle(b []byte, start int) int {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\'':
			if i+1 < len(b) && b[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		case '\n':
			return -1
		}
	}
	return -1
}

// plainEnd finds the end of a one-line plain scalar: the line end, a comment
// (" #"), or in flow context a ',', ']' or '}'; trailing spaces excluded.
func plainEnd(b []byte, start int, inFlow bool) int {
	i := start
	for ; i < len(b); i++ {
		c := b[i]
		if c == '\n' || c == '\r' {
			break
		}
		if c == '#' && i > start && (b[i-1] == ' ' || b[i-1] == '\t') {
			break
		}
		if inFlow && (c == ',' || c == ']' || c == '}') {
			break
		}
	}
	for i > start && (b[i-1] == ' ' || b[i-1] == '\t') {
		i--
	}
	return i
}

// RenderScalar writes v in the quoting style of the scalar it replaces, so a
// reviewer sees only the value change. A plain value that would not stay a
// plain string falls back to double quotes.
func RenderScalar(v string, style yaml.Style, inFlow bool) string {
	switch {
	case style&yaml.SingleQuotedStyle != 0:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case style&yaml.DoubleQuotedStyle != 0:
		return doubleQuote(v)
	}
	if plainSafe(v, inFlow) {
		return v
	}
	return doubleQuote(v)
}

func doubleQuote(v string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range v {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 && r != '\t': // a tab stays as written: YAML allows it in quotes
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// plainSafe reports whether v reads back as the same string when written as
// a plain scalar, in a block and, inFlow, inside [ ] too (yaml.v3 reads a
// plain "x?host=..." differently there: it refuses the ?).
func plainSafe(v string, inFlow bool) bool {
	return PlainTag(v, false) == "!!str" && (!inFlow || PlainTag(v, true) == "!!str")
}

// PlainTag returns the tag YAML resolves v to when v is written as a plain
// scalar ("!!bool" for false, "!!int" for 5432, "!!str" for db), in a block
// or, inFlow, as an item of a flow list; "" when v cannot be written plain
// there (empty, a line break, a comment, a mapping, a flow indicator in
// flow, or it reads back as another value).
func PlainTag(v string, inFlow bool) string {
	if v == "" || strings.ContainsAny(v, "\n\r") || strings.Contains(v, " #") || strings.Contains(v, "\t#") || strings.Contains(v, ": ") || strings.Contains(v, ":\t") {
		return ""
	}
	if inFlow && strings.ContainsAny(v, ",[]{}") {
		return ""
	}
	doc := "k: " + v
	if inFlow {
		doc = "k: [" + v + "]"
	}
	var n yaml.Node
	if yaml.Unmarshal([]byte(doc), &n) != nil || len(n.Content) == 0 {
		return ""
	}
	val := n.Content[0].Content[1]
	if inFlow {
		if len(val.Content) != 1 {
			return ""
		}
		val = val.Content[0]
	}
	if val.Kind != yaml.ScalarNode || val.Value != v {
		return ""
	}
	return val.Tag
}

// ScalarItems returns the items of a list as YAML text, when all are
// short-syntax scalars.
func ScalarItems(seq *yaml.Node) ([]string, bool) {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil, false
	}
	var out []string
	for _, it := range seq.Content {
		it = Deref(it)
		if it.Kind != yaml.ScalarNode {
			return nil, false
		}
		out = append(out, RenderScalar(it.Value, it.Style, false))
	}
	return out, true
}
