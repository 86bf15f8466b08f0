package configfile

import "strings"

// WholeFile reads a file that holds one value and nothing else, as a
// compose secret (`secrets: x: file: ./secrets/x.txt`) read through a
// *_FILE variable does: the value is the content without surrounding
// blanks and line breaks, which a rewrite keeps. An empty file has no
// value. A UTF-8 BOM before it is not part of it, and stays.
func WholeFile(data []byte) ([]Value, error) { return bomAware(wholeFile)(data) }

func wholeFile(data []byte) ([]Value, error) {
	s := string(data)
	start := len(s) - len(strings.TrimLeft(s, " \t\r\n"))
	end := len(strings.TrimRight(s, " \t\r\n"))
	if end <= start || strings.ContainsAny(s[start:end], "\r\n") {
		return nil, nil
	}
	line := strings.Count(s[:start], "\n") + 1
	col := start - strings.LastIndex(s[:start], "\n")
	return []Value{{Line: line, Col: col, Start: start, End: end, Value: s[start:end], render: func(v string) string { return v }}}, nil
}
