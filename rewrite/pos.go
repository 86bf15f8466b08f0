package rewrite

import "gopkg.in/yaml.v3"

// nodePos is the position of a YAML node in a source; a nil node stands
// for the file as a whole.
func nodePos(src *Source, n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: src.Path}
	}
	return Pos{File: src.Path, Line: n.Line, Col: n.Column}
}
