package yamledit

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/textedit"
)

// Editor collects byte-preserving edits to one Source, the way hclwrite's
// Body does for HCL: each operation (replace a scalar, insert lines, append
// a list item, add a key, delete lines) becomes a textedit.Edit on the
// original bytes, so everything outside the edited ranges stays as
// written, comments and blank lines included. Bytes applies them.
//
// An operation that cannot find its bytes exactly (a block scalar, a flow
// list whose end it cannot find, an empty mapping) makes no edit and
// returns a *finding.PosError at the node it was asked to change; the
// caller decides what to report.
type Editor struct {
	src    *Source
	edits  []textedit.Edit
	edited map[*yaml.Node]bool // scalars already replaced (an anchor is shared)
}

// NewEditor starts an empty set of edits to src.
func NewEditor(src *Source) *Editor {
	return &Editor{src: src, edited: map[*yaml.Node]bool{}}
}

// Source is the file the edits are for.
func (e *Editor) Source() *Source { return e.src }

// Replace replaces bytes [start, end) of the original with text; start ==
// end inserts. Insertions at one offset come out in the order they were
// made.
func (e *Editor) Replace(start, end int, text string) {
	e.edits = append(e.edits, textedit.Edit{Start: start, End: end, New: text})
}

// Bytes is the original with every edit applied. Overlapping edits are a
// bug of the caller: an error naming the file.
func (e *Editor) Bytes() ([]byte, error) {
	out, err := textedit.Apply(e.src.Data, e.edits)
	if err != nil {
		return nil, fmt.Errorf("internal error: %s: %w", e.src.Path, err)
	}
	return out, nil
}

func (e *Editor) fail(n *yaml.Node, msg string) error {
	return &finding.PosError{Pos: NodePos(e.src, n), Msg: msg}
}

// ReplaceScalar swaps the text of scalar n for v, written in n's own
// quoting style (RenderScalar), so a reviewer sees only the value change.
// A scalar replaced before is left alone (nil): an anchored value edited
// through one alias is edited for all. The error says why the value's
// bytes cannot be located exactly (ScalarSpan).
func (e *Editor) ReplaceScalar(n *yaml.Node, v string, inFlow bool) error {
	if e.edited[n] {
		return nil
	}
	sp, err := e.src.ScalarSpan(n, inFlow)
	if err != nil {
		return e.fail(n, err.Error())
	}
	e.edited[n] = true
	text := RenderScalar(v, n.Style, inFlow)
	// A plain boolean or number (read_only: true) stays one: quoting the
	// new value would turn compose's boolean into a string.
	if n.Style == 0 && n.Tag != "!!str" && n.Tag != "" && PlainTag(v, inFlow) == n.Tag {
		text = v
	}
	// An empty value (KEY: with nothing after it, compose's "from the
	// shell") starts right after the colon: a value needs a space there.
	if sp.Start == sp.End && sp.Start > 0 && e.src.Data[sp.Start-1] == ':' {
		text = " " + text
	}
	e.Replace(sp.Start, sp.End, text)
	return nil
}

// ReplaceItem swaps one item of the list seq for text (one line of YAML):
// a flow mapping {...} in place, a block item line for line.
func (e *Editor) ReplaceItem(seq, item *yaml.Node, text string) error {
	src := e.src
	start := src.Offset(item.Line, item.Column)
	if item.Style&yaml.FlowStyle != 0 {
		end := FlowClose(src.Data, start)
		if end < 0 {
			return e.fail(item, "cannot find the end of this flow mapping")
		}
		e.Replace(start, end+1, text)
		return nil
	}
	if seq.Style&yaml.FlowStyle != 0 {
		return e.fail(item, "a block item in a flow list")
	}
	// Block item "- type: tmpfs\n  target: ...": from its dash to its end.
	first := item.Line
	last := src.BlockEnd(first, seq.Column, false)
	e.Replace(src.lineStart[first-1], src.LineEndOffset(last),
		src.WithEOL(strings.Repeat(" ", seq.Column-1)+"- "+text+"\n"))
	return nil
}

// InsertAfterLine inserts text (LF-terminated lines, written with the
// file's own line endings) at the start of the line after line n, adding
// a line break first when the file's last line has none.
func (e *Editor) InsertAfterLine(n int, text string) {
	src := e.src
	off := src.LineEndOffset(n)
	if off == len(src.Data) && len(src.Data) > 0 && src.Data[len(src.Data)-1] != '\n' {
		text = "\n" + text
	}
	e.Replace(off, off, src.WithEOL(text))
}

// AppendItem adds item (one line of YAML) to the sequence seq, block or
// flow, as its last entry.
func (e *Editor) AppendItem(seq *yaml.Node, item string) error {
	src := e.src
	if seq.Style&yaml.FlowStyle != 0 {
		open := src.Offset(seq.Line, seq.Column)
		closing := FlowClose(src.Data, open)
		if closing < 0 {
			return e.fail(seq, "cannot find the end of this flow list; add "+item+" by hand")
		}
		at, sep := closing, ""
		if n := len(seq.Content); n > 0 {
			// Right after the last item, so the list's own spacing stays
			// around the brackets: [ a , b ] not [ a  , b].
			sep = ", "
			if sp, err := src.ScalarSpan(seq.Content[n-1], true); err == nil {
				at = sp.End
			}
		}
		e.Replace(at, at, sep+item)
		return nil
	}
	last := seq.Content[len(seq.Content)-1]
	col := dashColumn(src, seq)
	end := src.BlockEnd(last.Line, col, false)
	e.InsertAfterLine(end, strings.Repeat(" ", col-1)+"- "+item+"\n")
	return nil
}

// dashColumn is the column of the "-" of block list seq's items. yaml.v3
// places a tagged list (volumes: !override) at its tag, on the key's line,
// so the column is read off the first item's own line there.
func dashColumn(src *Source, seq *yaml.Node) int {
	if first := seq.Content[0]; first.Line > seq.Line {
		return src.IndentOf(first.Line) + 1
	}
	return seq.Column
}

// AddKeyWithItems adds "key:" with a block list of items as the last entry
// of the block mapping m, indented as the file indents its lists.
func (e *Editor) AddKeyWithItems(m *yaml.Node, key string, items []string) error {
	src := e.src
	if m.Style&yaml.FlowStyle != 0 || len(m.Content) == 0 {
		return e.fail(m, "cannot add "+key+": to a flow-style or empty mapping; add it by hand")
	}
	lastKey := m.Content[len(m.Content)-2]
	end := src.BlockEnd(lastKey.Line, lastKey.Column, true)
	lay := DetectLayout(src)
	ind := strings.Repeat(" ", lastKey.Column-1)
	var b strings.Builder
	b.WriteString(ind + key + ":\n")
	for _, it := range items {
		b.WriteString(ind + strings.Repeat(" ", lay.SeqIndent) + "- " + it + "\n")
	}
	e.InsertAfterLine(end, b.String())
	return nil
}

// DeleteLines removes lines first..last (1-based) whole, line endings
// included.
func (e *Editor) DeleteLines(first, last int) {
	e.Replace(e.src.lineStart[first-1], e.src.LineEndOffset(last), "")
}
