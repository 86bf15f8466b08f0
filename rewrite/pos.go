package rewrite

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Pos is where something is written: a file (as the user named it) and a
// 1-based line and column; Line 0 stands for the file as a whole.
type Pos struct {
	File      string
	Line, Col int
}

// String is "file:line:col", or "file" for the file as a whole.
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// nodePos is the position of a YAML node in a source; a nil node stands
// for the file as a whole.
func nodePos(src *Source, n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: src.Path}
	}
	return Pos{src.Path, n.Line, n.Column}
}
