package rewrite

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/yamledit"
	"gopkg.in/yaml.v3"
)

// insertAfterLine inserts text (LF-terminated lines) after line n of src
// (yamledit.Editor.InsertAfterLine).
func (pl *planner) insertAfterLine(src *Source, n int, text string) {
	pl.ed(src).InsertAfterLine(n, text)
}

// appendItem adds item to the sequence seq (block or flow) as its last
// entry (yamledit.Editor.AppendItem); UDS111 when it cannot.
func (pl *planner) appendItem(src *Source, seq *yaml.Node, item string) {
	pl.editFailed(pl.ed(src).AppendItem(seq, item), "", "")
}

// addKeyWithItems adds "key:" with a block list of items as the last entry
// of the block mapping m (yamledit.Editor.AddKeyWithItems); UDS111 when it
// cannot.
func (pl *planner) addKeyWithItems(src *Source, m *yaml.Node, key string, items []string) {
	pl.editFailed(pl.ed(src).AddKeyWithItems(m, key, items), "", "")
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
	kn, vols := yamledit.OwnKey(src.Root, "volumes")
	lay := yamledit.DetectLayout(src)
	switch {
	case kn == nil:
		// Written by finish, after every other edit at the end of the file.
		pl.compose.newTop[src] = append(pl.compose.newTop[src], name)
	case vols.Kind == yaml.ScalarNode && vols.Tag == "!!null":
		pl.insertAfterLine(src, kn.Line, strings.Repeat(" ", lay.Unit)+name+":\n")
	case vols.Kind == yaml.MappingNode && vols.Style&yaml.FlowStyle != 0:
		open := src.Offset(vols.Line, vols.Column)
		closing := yamledit.FlowClose(src.Data, open)
		if closing < 0 {
			pl.findings.add("UDS111", yamledit.NodePos(src, vols), "", "", "cannot find the end of volumes: {...}; declare "+name+" by hand")
			return
		}
		sep := ", "
		if len(vols.Content) == 0 {
			sep = ""
		}
		pl.ed(src).Replace(closing, closing, sep+name+": {}")
	case vols.Kind == yaml.MappingNode && len(vols.Content) > 0:
		lastKey := vols.Content[len(vols.Content)-2]
		end := src.BlockEnd(lastKey.Line, lastKey.Column, true)
		pl.insertAfterLine(src, end, strings.Repeat(" ", lastKey.Column-1)+name+":\n")
	default:
		pl.findings.add("UDS111", yamledit.NodePos(src, kn), "", "", "top-level volumes: has an unexpected form; declare "+name+" by hand")
	}
}

// finish adds the top-level volumes: sections that did not exist, at the
// end of each file.
func (pl *planner) finish() {
	for _, pk := range pl.compose.newKeys {
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
			text += strings.Repeat(" ", yamledit.DetectLayout(src).Unit) + n + ":\n"
		}
		if pl.blankBetweenSections(src) {
			text = "\n" + text
		}
		pl.insertAfterLine(src, src.DocEndLine(), text)
	}
}

// blankBetweenSections reports whether the file separates its top-level
// keys with blank lines, so an added section follows suit.
func (pl *planner) blankBetweenSections(src *Source) bool {
	for i := 2; i < len(src.Root.Content); i += 2 {
		if l := src.Root.Content[i].Line; l > 1 && strings.TrimSpace(src.Line(l-1)) == "" {
			return true
		}
	}
	return false
}
