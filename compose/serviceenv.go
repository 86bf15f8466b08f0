package compose

import (
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/yamledit"
)

// AddServiceEnv adds KEY: value as the last entry of a service mapping's
// own environment: (map or list form), creating the key when the mapping
// has none. It reports false, with a finding (UDS111), where that cannot
// be done exactly: a flow-style or empty environment:, or one merged from
// an anchor (<<), which an environment: of the service's own would replace
// (merge keys are shallow).
func (e *Editor) AddServiceEnv(d ServiceDef, service, key, value string) bool {
	src, node := d.Src, d.Node
	byHand := func(at *yaml.Node, why string) bool {
		e.rep.Add("UDS111", yamledit.NodePos(src, at), service, "environment", "add "+key+"="+value+" to "+service+" by hand: "+why)
		return false
	}
	kn, env := yamledit.OwnKey(node, "environment")
	if kn == nil {
		if mk, _ := yamledit.MapGet(node, "environment"); mk != nil {
			return byHand(mk, "its environment: comes from a merged anchor")
		}
		if node.Style&yaml.FlowStyle != 0 || len(node.Content) == 0 {
			return byHand(node, "the service is a flow-style or empty mapping")
		}
		lastKey := node.Content[len(node.Content)-2]
		ind := strings.Repeat(" ", lastKey.Column-1)
		e.YAML(src).InsertAfterLine(src.BlockEnd(lastKey.Line, lastKey.Column, true), ind+"environment:\n"+ind+strings.Repeat(" ", yamledit.DetectLayout(src).Unit)+key+": "+value+"\n")
		return true
	}
	env = yamledit.Deref(env)
	switch {
	case env.Kind == yaml.MappingNode && env.Style&yaml.FlowStyle == 0 && len(env.Content) > 0:
		last := env.Content[len(env.Content)-2]
		e.YAML(src).InsertAfterLine(src.BlockEnd(last.Line, last.Column, true), strings.Repeat(" ", last.Column-1)+key+": "+value+"\n")
	case env.Kind == yaml.SequenceNode && env.Style&yaml.FlowStyle == 0 && len(env.Content) > 0:
		e.Failed(e.YAML(src).AppendItem(env, key+"="+value), "", "")
	default:
		return byHand(kn, "its environment: is flow-style or empty")
	}
	return true
}

// overridePrefix starts the comment of an environment: entry written over
// a shared env_file line (OverrideComment).
const overridePrefix = "# socket form; the TCP value stays in env_file "

// OverrideComment is the line comment of an environment: entry that a
// migration writes over the env file line at path, which other uses keep
// on TCP (analyze's UDS166): it says why the entry is there, and
// IsOverride finds it again for revert.
func OverrideComment(path string) string {
	return overridePrefix + filepath.ToSlash(path) + " for its other uses"
}

// IsOverride reports whether v, an environment: entry, carries
// OverrideComment.
func IsOverride(v EnvVar) bool {
	if v.Node == nil {
		return false
	}
	return strings.HasPrefix(v.Node.LineComment, overridePrefix)
}

// EnvLookup returns the value of key among a service's variables (as
// ServiceEnv lists them), or "" when it sets none.
func EnvLookup(vars []EnvVar, key string) string {
	for _, v := range vars {
		if v.Key == key {
			return v.Value
		}
	}
	return ""
}

// RemoveServiceEnv removes v, an entry of the service's own block-style
// environment: in d (KEY: value, or - KEY=value, on a line of its own), and
// the environment: key with it when v is its only entry: the inverse of
// AddServiceEnv. It reports false, editing nothing, where that cannot be
// done exactly: a flow-style or anchored environment:, an entry of a merged
// anchor or over several lines, a line shared with other text.
func (e *Editor) RemoveServiceEnv(d ServiceDef, v EnvVar) bool {
	src := d.Src
	if src == nil || v.Src != src || v.Node == nil || v.EnvFile != nil {
		return false
	}
	kn, env := yamledit.OwnKey(d.Node, "environment")
	if kn == nil || env == nil || env.Anchor != "" || env.Kind == yaml.AliasNode || env.Style&yaml.FlowStyle != 0 {
		return false
	}
	// The entry's line, and the text before it there: blank before a
	// map key, a dash before a list item.
	first, col, lead, n := 0, 0, "", 0
	switch env.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(env.Content); i += 2 {
			if env.Content[i+1] == v.Node && !yamledit.IsMergeKey(env.Content[i]) {
				first, col = env.Content[i].Line, env.Content[i].Column
			}
		}
		n = len(env.Content) / 2
	case yaml.SequenceNode:
		for _, it := range env.Content {
			if it == v.Node {
				first, col, lead = it.Line, it.Column, "-"
			}
		}
		n = len(env.Content)
	}
	if first == 0 || v.Node.Anchor != "" || v.Node.Line != first || col > len(src.Line(first)) ||
		strings.TrimSpace(src.Line(first)[:col-1]) != lead {
		return false
	}
	ind := strings.Index(src.Line(first), strings.TrimLeft(src.Line(first), " ")) + 1
	last := src.BlockEnd(first, ind, false)
	if last != first {
		return false
	}
	if n == 1 {
		// The only entry: the environment: key goes with it, when
		// nothing else stands between them.
		if kn.Line+1 != first || strings.TrimSpace(src.Line(kn.Line)[kn.Column-1:]) != "environment:" {
			return false
		}
		first = kn.Line
	}
	e.YAML(src).DeleteLines(first, last)
	return true
}
