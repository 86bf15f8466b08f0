package yamledit

import (
	"reflect"

	yaml4 "go.yaml.in/yaml/v4"
)

// syntaxPos says where a YAML syntax error is, 1-based, or 0, 0 when it
// cannot tell. yaml.v3 reports only a line, and for parser errors the line
// where the enclosing block began, 0-based (gopkg.in/yaml.v3 decode.go,
// parser.fail prefers context_mark): "did not find expected key" three
// lines below services: is reported at line 1. go.yaml.in/yaml/v4 (linked
// anyway, through compose-go) keeps the problem's own mark in its error
// value (internal/libyaml errors.go: ParserError and ScannerError, fields
// Mark.Line and Mark.Column, both 0-based except that the scanner has
// already added 1 to the line: scanner.go formatScannerError). The types are
// internal, so the fields are read by reflection; TestSyntaxPos pins them.
func syntaxPos(data []byte) (line, col int) {
	var n yaml4.Node
	err := yaml4.Unmarshal(data, &n)
	if err == nil {
		return 0, 0
	}
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Struct {
		return 0, 0
	}
	mark := v.FieldByName("Mark")
	if !mark.IsValid() || mark.Kind() != reflect.Struct {
		return 0, 0
	}
	l, c := mark.FieldByName("Line"), mark.FieldByName("Column")
	if !l.CanInt() || !c.CanInt() {
		return 0, 0
	}
	line, col = int(l.Int()), int(c.Int())+1
	switch v.Type().Name() {
	case "ParserError":
		line++
	case "ScannerError":
	default:
		return 0, 0
	}
	return line, col
}
