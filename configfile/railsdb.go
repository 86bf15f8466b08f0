package configfile

import (
	"bytes"
	"regexp"

	"gopkg.in/yaml.v3"
)

// RailsValue is one setting of a Rails database.yml environment, as
// written: a plain value or an ERB tag.
type RailsValue struct {
	Line, Col  int
	Start, End int    // byte range of the value text in the template
	Text       string // the value text as written (an ERB tag, or the scalar)
	Value      string // the YAML value when it holds no ERB tag
	ERB        bool   // the value is one ERB tag
	Merged     bool   // it comes from a << merge (an anchor shared by environments)
}

// RailsSetting returns the value of key (host, adapter, url ...) in the
// environment env of a Rails config/database.yml, following << merges.
// The file is ERB first (ActiveRecord evaluates it, then parses YAML), so
// tags are masked before the YAML parse, keeping every position.
func RailsSetting(data []byte, env, key string) (RailsValue, bool, error) {
	// A UTF-8 BOM: parse the text after it, ranges onto the file as read.
	bom := 0
	if bytes.HasPrefix(data, utf8BOM) {
		data, bom = data[len(utf8BOM):], len(utf8BOM)
	}
	v, ok, err := railsSetting(data, env, key)
	v.Start, v.End = v.Start+bom, v.End+bom
	return v, ok, err
}

func railsSetting(data []byte, env, key string) (RailsValue, bool, error) {
	masked, tags, err := MaskERB(data)
	if err != nil {
		return RailsValue{}, false, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(masked, &doc); err != nil {
		return RailsValue{}, false, err
	}
	section, _ := mapValue(&doc, env)
	n, merged := mapValue(section, key)
	if n == nil || n.Kind != yaml.ScalarNode {
		return RailsValue{}, false, nil
	}
	start, end, err := scalarRange(masked, lineStarts(masked), n)
	if err != nil {
		return RailsValue{}, false, err
	}
	if q := n.Style; (q == yaml.DoubleQuotedStyle || q == yaml.SingleQuotedStyle) && end-start > 2 && inTag(tags, start+1, end-1) {
		// host: "<%= ENV.fetch('DB_HOST') { 'db' } %>": ERB runs first,
		// so the tag's output is the quoted scalar's text.
		v := RailsValue{Line: n.Line, Col: n.Column + 1, Start: start + 1, End: end - 1, Text: string(data[start+1 : end-1]), Merged: merged, ERB: true}
		return v, true, nil
	}
	v := RailsValue{Line: n.Line, Col: n.Column, Start: start, End: end, Text: string(data[start:end]), Merged: merged}
	v.ERB = len(tags) > 0 && inTag(tags, start, end)
	if !containsTag(tags, start, end) {
		v.Value = n.Value
	}
	return v, true, nil
}

func inTag(tags []ERBTag, start, end int) bool {
	for _, t := range tags {
		if t.Start == start && t.End == end {
			return true
		}
	}
	return false
}

func containsTag(tags []ERBTag, start, end int) bool {
	for _, t := range tags {
		if t.Start < end && t.End > start {
			return true
		}
	}
	return false
}

// erbFetchRE matches the ways an ERB tag reads a variable with a string
// default: ENV.fetch("X") { "d" }, ENV.fetch("X", "d"), ENV["X"] || "d".
var erbFetchRE = regexp.MustCompile(`ENV\.fetch\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*\)\s*\{\s*(["'])([^"'\\]*)["']\s*\}|ENV\.fetch\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*,\s*(["'])([^"'\\]*)["']\s*\)|ENV\[\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*\]\s*\|\|\s*(["'])([^"'\\]*)["']`)

// erbReadRE matches any read of a variable in an ERB tag.
var erbReadRE = regexp.MustCompile(`ENV(?:\.fetch\(\s*|\[\s*)["']([A-Za-z_][A-Za-z0-9_]*)["']`)

// ERBEnvRead returns the variable an ERB tag reads, if any.
func ERBEnvRead(tag string) (string, bool) {
	m := erbReadRE.FindStringSubmatch(tag)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// ERBDefault finds the string default of an ERB variable read in tag:
// the variable, the default's text and its byte range inside tag (without
// the quotes).
func ERBDefault(tag string) (key, def string, start, end int, ok bool) {
	m := erbFetchRE.FindStringSubmatchIndex(tag)
	if m == nil {
		return "", "", 0, 0, false
	}
	for g := 1; g+2 < len(m)/2; g += 3 {
		if m[2*g] >= 0 {
			return tag[m[2*g]:m[2*g+1]], tag[m[2*g+4]:m[2*g+5]], m[2*g+4], m[2*g+5], true
		}
	}
	return "", "", 0, 0, false
}

// RailsHost returns the host setting of a database.yml environment as an
// editable Value. A plain `host: db` is the value itself; an ERB tag that
// reads a variable with a string default (`<%= ENV.fetch("DB_HOST") { "db" } %>`)
// gives the default's text inside the tag, and envKey names the variable
// (the default applies only where it is unset). ok is false when the
// environment has no host, or a tag the tool does not read.
func RailsHost(data []byte, env string) (v Value, envKey string, ok bool, err error) {
	rv, ok, err := RailsSetting(data, env, "host")
	if err != nil || !ok {
		return Value{}, "", false, err
	}
	if !rv.ERB {
		if rv.Value == "" {
			return Value{}, "", false, nil
		}
		quote := ""
		if q := rv.Text[0]; q == '"' || q == '\'' {
			quote = string(q)
		}
		return Value{Key: "host", Line: rv.Line, Col: rv.Col, Start: rv.Start, End: rv.End, Value: rv.Value,
			render: func(s string) string { return quote + s + quote }}, "", true, nil
	}
	key, def, s, e, ok := ERBDefault(rv.Text)
	if !ok {
		return Value{}, "", false, nil
	}
	return Value{Key: "host", Line: rv.Line, Col: rv.Col + s, Start: rv.Start + s, End: rv.Start + e, Value: def,
		render: func(s string) string { return s }}, key, true, nil
}

// RailsURL returns a plain (ERB-free) `url:` setting of a database.yml
// environment as an editable Value.
func RailsURL(data []byte, env string) (Value, bool, error) {
	rv, ok, err := RailsSetting(data, env, "url")
	if err != nil || !ok || rv.ERB || rv.Value == "" {
		return Value{}, false, err
	}
	quote := ""
	if q := rv.Text[0]; q == '"' || q == '\'' {
		quote = string(q)
	}
	return Value{Key: "url", Line: rv.Line, Col: rv.Col, Start: rv.Start, End: rv.End, Value: rv.Value,
		render: func(s string) string { return quote + s + quote }}, true, nil
}
