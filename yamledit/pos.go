package yamledit

import (
	"github.com/uds-migrate/uds-migrate/finding"
	"gopkg.in/yaml.v3"
)

// NodePos is the position of a YAML node in a source; a nil node stands
// for the file as a whole.
func NodePos(src *Source, n *yaml.Node) finding.Pos {
	if n == nil {
		return finding.Pos{File: src.Path}
	}
	return finding.Pos{File: src.Path, Line: n.Line, Col: n.Column}
}
