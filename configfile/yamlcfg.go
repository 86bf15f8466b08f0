package configfile

import (
	"bytes"
	"errors"
	"io"

	"gopkg.in/yaml.v3"
)

// YAML reads the scalar settings of a YAML configuration file (Spring's
// application.yml) as dotted paths (spring.datasource.url), every
// document of the stream included. Values that are not single-line
// scalars are skipped: they are not connection strings the tool edits.
func YAML(data []byte) ([]Value, error) {
	ls := lineStarts(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []Value
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if out, err = yamlLeaves(data, ls, derefNode(&doc), "", out, 1); err != nil {
			return nil, err
		}
	}
}

func yamlLeaves(data []byte, ls []int, n *yaml.Node, prefix string, out []Value, depth int) ([]Value, error) {
	if n == nil || n.Kind != yaml.MappingNode {
		return out, nil
	}
	if depth > MaxDepth {
		return nil, tooDeep(n.Line, n.Column)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if prefix != "" {
			key = prefix + "." + key
		}
		switch v.Kind {
		case yaml.MappingNode:
			var err error
			if out, err = yamlLeaves(data, ls, v, key, out, depth+1); err != nil {
				return nil, err
			}
		case yaml.ScalarNode:
			start, end, err := scalarRange(data, ls, v)
			if err != nil {
				continue
			}
			style := v.Style
			out = append(out, Value{Key: key, Line: v.Line, Col: v.Column, Start: start, End: end, Value: v.Value,
				render: func(s string) string { return renderYAML(s, style) }})
		}
	}
	return out, nil
}
