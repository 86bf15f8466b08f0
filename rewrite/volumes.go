package rewrite

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// layout is how a file indents: the width of one level and how far a block
// sequence's dash sits right of its key (0 for "key:\n- item").
type layout struct{ unit, seqIndent int }

func detectLayout(src *Source) layout {
	l := layout{unit: 2, seqIndent: -1}
	if kn, svcs := ownKey(src.Root, "services"); svcs != nil && svcs.Kind == yaml.MappingNode && len(svcs.Content) > 0 && svcs.Style&yaml.FlowStyle == 0 {
		if u := svcs.Content[0].Column - kn.Column; u > 0 {
			l.unit = u
		}
	}
	var walk func(m *yaml.Node)
	walk = func(n *yaml.Node) {
		if l.seqIndent >= 0 || n == nil {
			return
		}
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 {
			for i := 0; i+1 < len(n.Content); i += 2 {
				v := n.Content[i+1]
				if v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 && v.Line > n.Content[i].Line {
					l.seqIndent = v.Column - n.Content[i].Column
					return
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(src.Root)
	if l.seqIndent < 0 {
		l.seqIndent = l.unit
	}
	return l
}

// insertAfterLine returns an edit that inserts text (LF-terminated lines) at
// the start of the line after line n, adding a line break first when the
// file's last line has none.
func (pl *planner) insertAfterLine(src *Source, n int, text string) {
	off := src.lineEndOffset(n)
	if off == len(src.Data) && len(src.Data) > 0 && src.Data[len(src.Data)-1] != '\n' {
		text = "\n" + text
	}
	pl.add(edit{src: src, start: off, end: off, text: src.withEOL(text)})
}

// appendItem adds item to the sequence seq (block or flow) as its last
// entry.
func (pl *planner) appendItem(src *Source, seq *yaml.Node, item string) {
	if seq.Style&yaml.FlowStyle != 0 {
		open := src.offset(seq.Line, seq.Column)
		closing := flowClose(src.Data, open)
		if closing < 0 {
			pl.findings.add("UDS111", nodePos(src, seq), "", "", "cannot find the end of this flow list; add "+item+" by hand")
			return
		}
		at, sep := closing, ""
		if n := len(seq.Content); n > 0 {
			// Right after the last item, so the list's own spacing stays
			// around the brackets: [ a , b ] not [ a  , b].
			sep = ", "
			if sp, err := src.scalarSpan(seq.Content[n-1], true); err == nil {
				at = sp.End
			}
		}
		pl.add(edit{src: src, start: at, end: at, text: sep + item})
		return
	}
	last := seq.Content[len(seq.Content)-1]
	col := dashColumn(src, last, seq.Column)
	end := src.blockEnd(last.Line, col, false)
	pl.insertAfterLine(src, end, strings.Repeat(" ", col-1)+"- "+item+"\n")
}

// dashColumn is the column of the dash before a block list item. It is the
// list's own column, except for an anchored list (x: &a\n  - item), whose
// node yaml.v3 places at the anchor.
func dashColumn(src *Source, item *yaml.Node, listCol int) int {
	line := src.line(item.Line)
	for c := min(item.Column-1, len(line)) - 1; c >= 0; c-- {
		switch line[c] {
		case '-':
			return c + 1
		case ' ':
			continue
		}
		break
	}
	return listCol
}

// addKeyWithItems adds "key:" with a block list of items as the last entry
// of the block mapping m.
func (pl *planner) addKeyWithItems(src *Source, m *yaml.Node, key string, items []string) {
	if m.Style&yaml.FlowStyle != 0 || len(m.Content) == 0 {
		pl.findings.add("UDS111", nodePos(src, m), "", "", "cannot add "+key+": to a flow-style or empty mapping; add it by hand")
		return
	}
	lastKey := m.Content[len(m.Content)-2]
	end := src.blockEnd(lastKey.Line, lastKey.Column, true)
	lay := detectLayout(src)
	ind := strings.Repeat(" ", lastKey.Column-1)
	var b strings.Builder
	b.WriteString(ind + key + ":\n")
	for _, it := range items {
		b.WriteString(ind + strings.Repeat(" ", lay.seqIndent) + "- " + it + "\n")
	}
	pl.insertAfterLine(src, end, b.String())
}

// ensureTopVolume declares a named volume under the top-level volumes:,
// creating the key at the end of the file when absent.
func (pl *planner) ensureTopVolume(src *Source, name string) {
	if pl.volumeDeclaredFor(src, name) {
		return
	}
	pl.compose.topAdded[topVolume{src, name}] = true
	pl.changes = append(pl.changes, Change{Kind: "volume", Pos: Pos{File: src.Path}, Key: "volumes", After: name,
		Reason: "named volume: it copies the image directory's owner and mode, unlike a root-owned host directory"})
	kn, vols := ownKey(src.Root, "volumes")
	lay := detectLayout(src)
	switch {
	case kn == nil:
		// Written by finish, after every other edit at the end of the file.
		pl.compose.newTop[src] = append(pl.compose.newTop[src], name)
	case vols.Kind == yaml.ScalarNode && vols.Tag == "!!null":
		pl.insertAfterLine(src, kn.Line, strings.Repeat(" ", lay.unit)+name+":\n")
	case vols.Kind == yaml.MappingNode && vols.Style&yaml.FlowStyle != 0:
		open := src.offset(vols.Line, vols.Column)
		closing := flowClose(src.Data, open)
		if closing < 0 {
			pl.findings.add("UDS111", nodePos(src, vols), "", "", "cannot find the end of volumes: {...}; declare "+name+" by hand")
			return
		}
		sep := ", "
		if len(vols.Content) == 0 {
			sep = ""
		}
		pl.add(edit{src: src, start: closing, end: closing, text: sep + name + ": {}"})
	case vols.Kind == yaml.MappingNode && len(vols.Content) > 0:
		lastKey := vols.Content[len(vols.Content)-2]
		end := src.blockEnd(lastKey.Line, lastKey.Column, true)
		pl.insertAfterLine(src, end, strings.Repeat(" ", lastKey.Column-1)+name+":\n")
	default:
		pl.findings.add("UDS111", nodePos(src, kn), "", "", "top-level volumes: has an unexpected form; declare "+name+" by hand")
	}
}

// finish adds the top-level volumes: sections that did not exist, at the
// end of each file.
func (pl *planner) finish() {
	for _, pk := range pl.compose.newKeys {
		if pk.alias != nil {
			pl.replaceAlias(pk)
			continue
		}
		pl.addKeyWithItems(pk.src, pk.svc, "volumes", pk.items)
	}
	pl.compose.newKeys = nil
	for _, src := range pl.p.sources {
		names := pl.compose.newTop[src]
		if len(names) == 0 {
			continue
		}
		text := "volumes:\n"
		for _, n := range names {
			text += strings.Repeat(" ", detectLayout(src).unit) + n + ":\n"
		}
		if pl.blankBetweenSections(src) {
			text = "\n" + text
		}
		pl.insertAfterLine(src, src.docEndLine(), text)
	}
}

// blankBetweenSections reports whether the file separates its top-level
// keys with blank lines, so an added section follows suit.
func (pl *planner) blankBetweenSections(src *Source) bool {
	for i := 2; i < len(src.Root.Content); i += 2 {
		if l := src.Root.Content[i].Line; l > 1 && strings.TrimSpace(src.line(l-1)) == "" {
			return true
		}
	}
	return false
}

// flowClose finds the bracket closing the flow collection opened at open.
func flowClose(b []byte, open int) int {
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
