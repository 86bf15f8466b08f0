package compose

import (
	"bytes"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/yamledit"
	"gopkg.in/yaml.v3"
)

// EnsureTopVolume declares a named volume under the top-level volumes:,
// creating the key at the end of the file when absent.
func (e *Editor) EnsureTopVolume(src *Source, name string) {
	if e.volumeDeclaredFor(src, name) {
		return
	}
	e.topAdded[topVolume{src, name}] = true
	e.rep.Change(finding.Change{Kind: "volume", Pos: finding.Pos{File: src.Path}, Key: "volumes", After: name,
		Reason: "named volume: it copies the image directory's owner and mode, unlike a root-owned host directory"})
	kn, vols := yamledit.OwnKey(src.Root, "volumes")
	lay := yamledit.DetectLayout(src)
	switch {
	case kn == nil:
		// Written by finish, after every other edit at the end of the file.
		e.newTop[src] = append(e.newTop[src], name)
	case vols.Kind == yaml.ScalarNode && vols.Tag == "!!null":
		e.YAML(src).InsertAfterLine(kn.Line, strings.Repeat(" ", lay.Unit)+name+":\n")
	case vols.Kind == yaml.MappingNode && vols.Style&yaml.FlowStyle != 0:
		open := src.Offset(vols.Line, vols.Column)
		closing := yamledit.FlowClose(src.Data, open)
		if closing < 0 {
			e.rep.Add("UDS111", yamledit.NodePos(src, vols), "", "", "cannot find the end of volumes: {...}; declare "+name+" by hand")
			return
		}
		sep := ", "
		if len(vols.Content) == 0 {
			sep = ""
		}
		e.YAML(src).Replace(closing, closing, sep+name+": {}")
	case vols.Kind == yaml.MappingNode && len(vols.Content) > 0:
		lastKey := vols.Content[len(vols.Content)-2]
		end := src.BlockEnd(lastKey.Line, lastKey.Column, true)
		e.YAML(src).InsertAfterLine(end, strings.Repeat(" ", lastKey.Column-1)+name+":\n")
	default:
		e.rep.Add("UDS111", yamledit.NodePos(src, kn), "", "", "top-level volumes: has an unexpected form; declare "+name+" by hand")
	}
}

// finish adds the top-level volumes: sections that did not exist, at the
// end of each file.
func (e *Editor) finish() {
	for _, pk := range e.newKeys {
		if pk.alias != nil {
			(anchorLists{e}).replaceAlias(pk)
			continue
		}
		e.Failed(e.YAML(pk.src).AddKeyWithItems(pk.svc, "volumes", pk.items), "", "")
	}
	e.newKeys = nil
	for _, src := range e.p.Sources {
		names := e.newTop[src]
		if len(names) == 0 {
			continue
		}
		text := "volumes:\n"
		for _, n := range names {
			text += strings.Repeat(" ", yamledit.DetectLayout(src).Unit) + n + ":\n"
		}
		// The section goes after the document's last non-blank line, so
		// blank lines that end the file stay at its end and revert can
		// tell the blank line it added before the section (keila's
		// compose file ends in one, which also asks for that separator).
		docEnd := src.DocEndLine()
		end := docEnd
		for end > 1 && strings.TrimSpace(src.Line(end)) == "" {
			end--
		}
		// Lines after end up to the document's end, each with its line
		// break: none when the file ends with end's own newline.
		tail := src.Data[src.Offset(end+1, 1):src.Offset(docEnd+1, 1)]
		if blankBetweenSections(src) || bytes.ContainsRune(tail, '\n') {
			text = "\n" + text
		}
		e.YAML(src).InsertAfterLine(end, text)
	}
}

// blankBetweenSections reports whether the file separates its top-level
// keys with blank lines, so an added section follows suit.
func blankBetweenSections(src *Source) bool {
	for i := 2; i < len(src.Root.Content); i += 2 {
		if l := src.Root.Content[i].Line; l > 1 && strings.TrimSpace(src.Line(l-1)) == "" {
			return true
		}
	}
	return false
}

// AddMount appends a short-syntax volumes: entry to a service. A list the
// service shares with others through an anchor (a merged <<, or
// volumes: *alias) is edited where it is written only when every service
// using it gets the entry in this step (Mounting); otherwise the service
// gets a list of its own with the anchor's items copied (merge keys are
// shallow: its own list replaces the anchor's), and a list written in this
// service that others merge is first copied into theirs
// (sharedvolumes.go).
func (e *Editor) AddMount(src *Source, svc *yaml.Node, service, item, reason string) {
	at := yamledit.NodePos(src, svc)
	if kn, _ := yamledit.OwnKey(ServicesMapping(src), service); kn != nil {
		at = yamledit.NodePos(src, kn)
	}
	e.rep.Change(finding.Change{Kind: "mount", Pos: at, Service: service, Key: "volumes", After: item, Reason: reason})
	for _, pk := range e.newKeys {
		if pk.svc == svc && pk.src == src {
			if !slices.Contains(pk.items, item) {
				pk.items = append(pk.items, item)
			}
			return
		}
	}
	kn, own := yamledit.OwnKey(svc, "volumes")
	var shared *yaml.Node // a list written elsewhere: merged, or aliased
	switch {
	case kn == nil:
		if _, mseq := yamledit.MapGet(svc, "volumes"); mseq != nil {
			shared = yamledit.Deref(mseq)
		}
	case own.Kind == yaml.AliasNode:
		shared = yamledit.Deref(own)
	}
	if shared != nil && !(anchorLists{e}).mountedByAll(src, shared, service) {
		(anchorLists{e}).ownVolumes(src, svc, service, kn, own, shared, item)
		return
	}
	if kn == nil && shared == nil {
		e.newKeys = append(e.newKeys, &pendingKey{src: src, svc: svc, items: []string{item}})
		return
	}
	seq := shared
	if seq == nil {
		seq = yamledit.Deref(own)
		if seq.Kind == yaml.SequenceNode && !(anchorLists{e}).mountedByAll(src, seq, service) {
			// Others merge this service's own list: they keep it as it
			// was, in lists of their own.
			(anchorLists{e}).shieldMergers(src, seq, service)
		}
	}
	if seq.Kind != yaml.SequenceNode {
		e.rep.Add("UDS111", yamledit.NodePos(src, svc), service, "volumes", "volumes: is not a list; add "+item+" by hand")
		return
	}
	if e.appended[seq] == nil {
		e.appended[seq] = map[string]bool{}
	}
	if e.appended[seq][item] {
		return
	}
	e.appended[seq][item] = true
	if len(seq.Content) == 0 && seq.Style&yaml.FlowStyle == 0 {
		e.YAML(src).InsertAfterLine(kn.Line, strings.Repeat(" ", kn.Column-1+yamledit.DetectLayout(src).SeqIndent)+"- "+item+"\n")
		return
	}
	e.Failed(e.YAML(src).AppendItem(seq, item), service, "volumes")
}

// pendingKey is a volumes: key to add to a service that has none of its
// own, with every item the migration needs there (a client of two
// databases, or of a database and an app server, gets one key).
type pendingKey struct {
	src   *Source
	svc   *yaml.Node
	items []string
	// key and alias: the service's own volumes: *x, replaced by items.
	key, alias *yaml.Node
}

// RemoveMount deletes a service's mount m from every file that writes it
// (the same volume at the same target): a migration of several files may
// have written it in more than one.
func (e *Editor) RemoveMount(service string, m Mount) {
	for _, d := range e.p.ServiceDefs(service) {
		_, ms := e.p.Mounts(d.Src, d.Node)
		for _, o := range ms {
			if o.Source == m.Source && o.Target == m.Target {
				e.removeItem(o.Src, d.Node, o)
			}
		}
	}
}

// removeItem deletes a volumes: entry; when it was the only one, the
// volumes: key goes too.
func (e *Editor) removeItem(src *Source, svc *yaml.Node, m Mount) {
	// A list shared through an anchor is reached from each service that
	// uses it: its item goes once.
	if e.removedItem[m.Node] {
		return
	}
	e.removedItem[m.Node] = true
	// The list may be merged from an anchor (<<) or aliased (*x): the item
	// goes from the list where it is written.
	kn, seq := yamledit.MapGet(svc, "volumes")
	ownKn, _ := yamledit.OwnKey(svc, "volumes")
	whole := kn != nil && kn == ownKn && seq.Kind != yaml.AliasNode // the key may go with its last item
	seq = yamledit.Deref(seq)
	if kn != nil && seq != nil && seq.Kind == yaml.SequenceNode && seq.Style&yaml.FlowStyle != 0 && m.Src == src && len(seq.Content) == 1 && seq.Content[0] == m.Node {
		// [a] → []: the list was there before the migration filled it.
		if sp, err := src.ScalarSpan(m.Node, true); err == nil {
			e.YAML(src).Replace(sp.Start, sp.End, "")
			return
		}
	}
	if kn != nil && seq != nil && seq.Kind == yaml.SequenceNode && seq.Style&yaml.FlowStyle != 0 && m.Src == src && len(seq.Content) > 1 {
		// [a, b]: remove ", b" (or "a, ") so the list keeps its own spacing.
		for i, it := range seq.Content {
			if it != m.Node {
				continue
			}
			sp, err := src.ScalarSpan(it, true)
			if err != nil {
				break
			}
			if i > 0 {
				prev, err := src.ScalarSpan(seq.Content[i-1], true)
				if err == nil {
					e.YAML(src).Replace(prev.End, sp.End, "")
					return
				}
			} else if next, err := src.ScalarSpan(seq.Content[1], true); err == nil {
				e.YAML(src).Replace(sp.Start, next.Start, "")
				return
			}
		}
	}
	if kn == nil || seq == nil || seq.Kind != yaml.SequenceNode || seq.Style&yaml.FlowStyle != 0 || m.Src != src {
		e.rep.Add("UDS111", yamledit.NodePos(src, m.Node), e.p.ServiceOf(svc), "volumes", e.p.ServiceOf(svc)+": remove the volume "+m.Source+" from this service by hand")
		return
	}
	if len(seq.Content) == 1 && whole {
		e.YAML(src).DeleteLines(kn.Line, src.BlockEnd(kn.Line, kn.Column, true))
		return
	}
	if len(seq.Content) == 1 {
		e.rep.Add("UDS111", yamledit.NodePos(src, m.Node), e.p.ServiceOf(svc), "volumes", e.p.ServiceOf(svc)+": its volumes: list, shared through an anchor, holds only "+m.Source+": remove it by hand")
		return
	}
	e.YAML(src).DeleteLines(m.Node.Line, src.BlockEnd(m.Node.Line, src.IndentOf(m.Node.Line)+1, false))
	// Every item removed one by one: the key goes too (an empty
	// "volumes:" is null, which compose's schema refuses).
	if e.removed == nil {
		e.removed = map[*yaml.Node]int{}
	}
	if e.removed[seq]++; whole && e.removed[seq] == len(seq.Content) && kn.Line < seq.Content[0].Line {
		e.YAML(src).DeleteLines(kn.Line, kn.Line)
	}
}

// RemoveTopVolumes deletes top-level volume declarations, and the volumes:
// section when nothing is left in it (with the blank line before it, when it
// ends the file).
func (e *Editor) RemoveTopVolumes(src *Source, names []string) {
	kn, vols := yamledit.OwnKey(src.Root, "volumes")
	if len(names) == 0 || kn == nil || vols.Kind != yaml.MappingNode {
		return
	}
	if vols.Style&yaml.FlowStyle != 0 {
		removeFlowVolumes(e.YAML(src), src, vols, names)
		return
	}
	var keys []*yaml.Node
	for _, n := range names {
		if vk, _ := yamledit.OwnKey(vols, n); vk != nil {
			keys = append(keys, vk)
		}
	}
	if len(keys) == len(vols.Content)/2 {
		first, last := kn.Line, src.BlockEnd(kn.Line, kn.Column, true)
		if last >= src.LastContentLine() && first > 1 && strings.TrimSpace(src.Line(first-1)) == "" {
			first--
		}
		e.YAML(src).DeleteLines(first, last)
		return
	}
	for _, vk := range keys {
		e.YAML(src).DeleteLines(vk.Line, src.BlockEnd(vk.Line, vk.Column, true))
	}
}

// removeFlowVolumes deletes declarations from a flow mapping
// (volumes: {data: {}, db-socket: {}}), each with the ", " before it (or
// after it, for the first), as the migration appends them; {} stays when
// none is left. A declaration whose text it cannot place stays.
func removeFlowVolumes(ed *yamledit.Editor, src *Source, vols *yaml.Node, names []string) {
	spans := make([][2]int, len(vols.Content)/2)
	for i := range spans {
		start, end, ok := flowEntry(src, vols.Content[2*i], vols.Content[2*i+1])
		if !ok {
			return
		}
		spans[i] = [2]int{start, end}
	}
	drop := make([]bool, len(spans))
	for i := range spans {
		drop[i] = slices.Contains(names, vols.Content[2*i].Value)
	}
	if !slices.Contains(drop, false) {
		ed.Replace(spans[0][0], spans[len(spans)-1][1], "") // {a: {}} → {}
		return
	}
	for i, sp := range spans {
		switch {
		case !drop[i]:
		case slices.Contains(drop[:i], false):
			ed.Replace(spans[i-1][1], sp[1], "") // ", name: {}"
		default:
			ed.Replace(sp[0], spans[i+1][0], "") // "name: {}, " before the first kept
		}
	}
}

// flowEntry is the byte range of one key: value entry of a flow mapping.
func flowEntry(src *Source, k, v *yaml.Node) (start, end int, ok bool) {
	if k.Kind != yaml.ScalarNode || k.Style != 0 {
		return 0, 0, false // the migration writes plain keys
	}
	start = src.Offset(k.Line, k.Column)
	switch v.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		closing := yamledit.FlowClose(src.Data, src.Offset(v.Line, v.Column))
		if closing < 0 {
			return 0, 0, false
		}
		return start, closing + 1, true
	case yaml.ScalarNode:
		vs, err := src.ScalarSpan(v, true)
		if err != nil {
			return 0, 0, false
		}
		return start, vs.End, true
	}
	return 0, 0, false
}

// PlainVolume reports whether a top-level volume is declared without
// options (name: or name: {}), the way the migration declares it.
func (p *Project) PlainVolume(name string) bool {
	for _, src := range p.Sources {
		_, vols := yamledit.OwnKey(src.Root, "volumes")
		if _, v := yamledit.OwnKey(yamledit.Deref(vols), name); v != nil {
			v = yamledit.Deref(v)
			return (v.Kind == yaml.ScalarNode && v.Tag == "!!null") || (v.Kind == yaml.MappingNode && len(v.Content) == 0)
		}
	}
	return true
}

// ServiceOf names the service whose mapping is svc.
func (p *Project) ServiceOf(svc *yaml.Node) string {
	for _, name := range p.ServiceOrder() {
		if _, n := p.ServiceNode(name); n == svc {
			return name
		}
	}
	return ""
}
