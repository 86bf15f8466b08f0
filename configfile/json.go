package configfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// jsonFrame is one open object or array while tokenizing.
type jsonFrame struct {
	array bool
	index int
	key   string
}

func (f jsonFrame) name() string {
	if f.array {
		return strconv.Itoa(f.index)
	}
	return f.key
}

// JSON reads the string values of a JSON configuration file with
// encoding/json's tokenizer, as dotted paths (database.url; array
// elements by index), with the byte range of each string literal.
func JSON(data []byte) ([]Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	lc := &lineCounter{s: string(data)}
	var stack []jsonFrame
	expectKey := false
	var out []Value
	for {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				if len(stack) == MaxDepth {
					return nil, tooDeep(lc.at(before + bytes.IndexAny(data[before:], "{[")))
				}
				stack = append(stack, jsonFrame{array: t == '['})
				expectKey = t == '{'
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if expectKey {
				stack[len(stack)-1].key = t
				expectKey = false
				continue
			}
			start := before + bytes.IndexByte(data[before:], '"')
			var names []string
			for _, f := range stack {
				names = append(names, f.name())
			}
			line, col := lc.at(start)
			out = append(out, Value{Key: strings.Join(names, "."), Line: line, Col: col, Start: start, End: int(dec.InputOffset()), Value: t, render: jsonString})
		}
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				expectKey = true
			}
		}
	}
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
