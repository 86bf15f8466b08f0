package yamledit

import (
	"gopkg.in/yaml.v3"
)

// Layout is how a file indents: the width of one level and how far a block
// sequence's dash sits right of its key (0 for "key:\n- item").
type Layout struct{ Unit, SeqIndent int }

// DetectLayout reads the indentation of src: the first service's, and the
// first block sequence under a key; two spaces where the file shows none.

func DetectLayout(src *Source) Layout {
	l := Layout{Unit: 2, SeqIndent: -1}
	if kn, svcs := OwnKey(src.Root, "services"); svcs != nil && svcs.Kind == yaml.MappingNode && len(svcs.Content) > 0 && svcs.Style&yaml.FlowStyle == 0 {
		if u := svcs.Content[0].Column - kn.Column; u > 0 {
			l.Unit = u
		}
	}
	var walk func(m *yaml.Node)
	walk = func(n *yaml.Node) {
		if l.SeqIndent >= 0 || n == nil {
			return
		}
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 {
			for i := 0; i+1 < len(n.Content); i += 2 {
				v := n.Content[i+1]
				if v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 && v.Line > n.Content[i].Line {
					l.SeqIndent = v.Column - n.Content[i].Column
					return
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(src.Root)
	if l.SeqIndent < 0 {
		l.SeqIndent = l.Unit
	}
	return l
}

// FlowClose finds the bracket closing the flow collection opened at open.
func FlowClose(b []byte, open int) int {
	depth := 0
	for i := open; i < len(b); i++ {
		switch b[i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i
			}
		case '"':
			if j := closeDouble(b, i); j > 0 {
				i = j - 1
			}
		case '\'':
			if j := closeSingle(b, i); j > 0 {
				i = j - 1
			}
		}
	}
	return -1
}
