package configfile

import (
	"errors"
	"strconv"
	"strings"
)

// HJSON reads the string values of an Hjson file (hjson.github.io/syntax.html):
// optional root braces, `#`, `//` and `/* */` comments, optional commas,
// quoteless keys, and strings quoted ("..." or '...') or quoteless (to the
// end of the line, trailing space trimmed). Multi-line ”' strings are
// skipped (never edited). Keys are dotted paths, as for JSON.
func HJSON(data []byte) ([]Value, error) {
	h := &hjsonReader{s: string(data)}
	h.lc.s = h.s
	h.skip()
	var out []Value
	var err error
	if h.i < len(h.s) && h.s[h.i] == '{' || h.i < len(h.s) && h.s[h.i] == '[' {
		out, err = h.value("", out)
	} else {
		out, err = h.members("", out, 0)
	}
	return out, err
}

type hjsonReader struct {
	s     string
	i     int
	depth int // objects and arrays open at i
	lc    lineCounter
}

// open enters an object or array (h.i at its bracket).
func (h *hjsonReader) open() error {
	if h.depth++; h.depth > MaxDepth {
		return tooDeep(h.lc.at(h.i))
	}
	h.i++
	return nil
}

// skip passes whitespace, commas and comments.
func (h *hjsonReader) skip() {
	for h.i < len(h.s) {
		switch c := h.s[h.i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',':
			h.i++
		case c == '#' || strings.HasPrefix(h.s[h.i:], "//"):
			h.toEOL()
		case strings.HasPrefix(h.s[h.i:], "/*"):
			end := strings.Index(h.s[h.i+2:], "*/")
			if end < 0 {
				h.i = len(h.s)
				return
			}
			h.i += end + 4
		default:
			return
		}
	}
}

func (h *hjsonReader) toEOL() {
	if nl := strings.IndexByte(h.s[h.i:], '\n'); nl >= 0 {
		h.i += nl
	} else {
		h.i = len(h.s)
	}
}

// members reads key: value pairs until close (0 at the root).
func (h *hjsonReader) members(prefix string, out []Value, close byte) ([]Value, error) {
	for {
		h.skip()
		if h.i >= len(h.s) {
			if close != 0 {
				return nil, errors.New("hjson: unclosed object")
			}
			return out, nil
		}
		if h.s[h.i] == close {
			h.i++
			return out, nil
		}
		key, err := h.key()
		if err != nil {
			return nil, err
		}
		if prefix != "" {
			key = prefix + "." + key
		}
		if out, err = h.value(key, out); err != nil {
			return nil, err
		}
	}
}

func (h *hjsonReader) key() (string, error) {
	if c := h.s[h.i]; c == '"' || c == '\'' {
		start := h.i
		if err := h.quoted(); err != nil {
			return "", err
		}
		k := h.s[start+1 : h.i-1]
		return k, h.colon()
	}
	start := h.i
	for h.i < len(h.s) && !strings.ContainsRune(",:[]{} \t\r\n", rune(h.s[h.i])) {
		h.i++
	}
	if h.i == start {
		return "", errors.New("hjson: key expected")
	}
	return h.s[start:h.i], h.colon()
}

func (h *hjsonReader) colon() error {
	for h.i < len(h.s) && (h.s[h.i] == ' ' || h.s[h.i] == '\t') {
		h.i++
	}
	if h.i >= len(h.s) || h.s[h.i] != ':' {
		return errors.New("hjson: ':' expected")
	}
	h.i++
	return nil
}

// quoted passes a "..." or '...' string (h.i at the quote).
func (h *hjsonReader) quoted() error {
	q := h.s[h.i]
	for h.i++; h.i < len(h.s); h.i++ {
		switch h.s[h.i] {
		case '\\':
			h.i++
		case q:
			h.i++
			return nil
		case '\n':
			return errors.New("hjson: newline in a quoted string")
		}
	}
	return errors.New("hjson: unterminated string")
}

// value reads one value for key.
func (h *hjsonReader) value(key string, out []Value) ([]Value, error) {
	for h.i < len(h.s) && (h.s[h.i] == ' ' || h.s[h.i] == '\t') {
		h.i++
	}
	if h.i >= len(h.s) {
		return out, nil
	}
	start := h.i
	switch c := h.s[h.i]; {
	case c == '{':
		if err := h.open(); err != nil {
			return nil, err
		}
		out, err := h.members(key, out, '}')
		h.depth--
		return out, err
	case c == '[':
		if err := h.open(); err != nil {
			return nil, err
		}
		for n := 0; ; n++ {
			h.skip()
			if h.i >= len(h.s) {
				return nil, errors.New("hjson: unclosed array")
			}
			if h.s[h.i] == ']' {
				h.i++
				h.depth--
				return out, nil
			}
			var err error
			if out, err = h.value(key+"."+strconv.Itoa(n), out); err != nil {
				return nil, err
			}
		}
	case strings.HasPrefix(h.s[h.i:], "'''"):
		end := strings.Index(h.s[h.i+3:], "'''")
		if end < 0 {
			return nil, errors.New("hjson: unterminated ''' string")
		}
		h.i += end + 6
		return out, nil
	case c == '"' || c == '\'':
		if err := h.quoted(); err != nil {
			return nil, err
		}
		text := h.s[start:h.i]
		v := unquoteHJSON(text)
		return append(out, h.at(key, start, h.i, v, jsonString)), nil
	}
	h.toEOL()
	end := h.i
	for end > start && strings.ContainsRune(" \t\r", rune(h.s[end-1])) {
		end--
	}
	v := h.s[start:end]
	return append(out, h.at(key, start, end, v, func(s string) string { return s })), nil
}

func (h *hjsonReader) at(key string, start, end int, v string, render func(string) string) Value {
	line, col := h.lc.at(start)
	return Value{Key: key, Line: line, Col: col, Start: start, End: end, Value: v, render: render}
}

// unquoteHJSON decodes a quoted Hjson string (JSON escapes; ' quotes too).
func unquoteHJSON(text string) string {
	var b strings.Builder
	body := text[1 : len(text)-1]
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' && i+1 < len(body) {
			i++
			switch body[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(body[i])
			}
			continue
		}
		b.WriteByte(body[i])
	}
	return b.String()
}
