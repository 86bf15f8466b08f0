package configfile

import (
	"bytes"
	"errors"

	"gopkg.in/yaml.v3"
)

// lineStarts returns the byte offset of each line's first byte.
func lineStarts(data []byte) []int {
	out := []int{0}
	for i, b := range data {
		if b == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// scalarRange returns the byte range of a single-line scalar as written
// (quotes included) in data, whose line starts are ls. yaml.v3 columns
// count runes; the files edited here are ASCII where values sit, and a
// line with other runes before the value is refused.
func scalarRange(data []byte, ls []int, n *yaml.Node) (int, int, error) {
	if n.Line < 1 || n.Line > len(ls) {
		return 0, 0, errors.New("value position out of range")
	}
	lineStart := ls[n.Line-1]
	for _, b := range data[lineStart : lineStart+n.Column-1] {
		if b >= 0x80 {
			return 0, 0, errors.New("non-ASCII text before the value")
		}
	}
	start := lineStart + n.Column - 1
	eol := bytes.IndexByte(data[start:], '\n')
	if eol < 0 {
		eol = len(data) - start
	}
	line := data[start : start+eol]
	switch n.Style {
	case 0:
		if !bytes.HasPrefix(line, []byte(n.Value)) {
			return 0, 0, errors.New("a plain value that spans lines")
		}
		return start, start + len(n.Value), nil
	case yaml.DoubleQuotedStyle:
		for i := 1; i < len(line); i++ {
			switch line[i] {
			case '\\':
				i++
			case '"':
				return start, start + i + 1, nil
			}
		}
	case yaml.SingleQuotedStyle:
		for i := 1; i < len(line); i++ {
			if line[i] == '\'' {
				if i+1 < len(line) && line[i+1] == '\'' {
					i++
					continue
				}
				return start, start + i + 1, nil
			}
		}
	}
	return 0, 0, errors.New("a block or multi-line value")
}

// renderYAML writes v in the quoting style of the value it replaces:
// plain when YAML reads it back unchanged, else double-quoted.
func renderYAML(v string, style yaml.Style) string {
	switch style {
	case yaml.SingleQuotedStyle:
		return "'" + string(bytes.ReplaceAll([]byte(v), []byte("'"), []byte("''"))) + "'"
	case 0:
		var back map[string]string
		if err := yaml.Unmarshal([]byte("k: "+v), &back); err == nil && back["k"] == v && !bytes.ContainsAny([]byte(v), "#\n") {
			return v
		}
	}
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range v {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// mapValue returns key's value in mapping m, following << merges (the
// mapping's own key wins, as in YAML's merge key type), and whether it came
// through a merge.
func mapValue(m *yaml.Node, key string) (*yaml.Node, bool) {
	m = derefNode(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Tag != "!!merge" {
			return m.Content[i+1], false
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Tag == "!!merge" || m.Content[i].Value == "<<" {
			srcs := []*yaml.Node{derefNode(m.Content[i+1])}
			if srcs[0].Kind == yaml.SequenceNode {
				srcs = srcs[0].Content
			}
			for _, s := range srcs {
				if v, _ := mapValue(s, key); v != nil {
					return v, true
				}
			}
		}
	}
	return nil, false
}

func derefNode(n *yaml.Node) *yaml.Node {
	for n != nil && (n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else if len(n.Content) > 0 {
			n = n.Content[0]
		} else {
			return nil
		}
	}
	return n
}
