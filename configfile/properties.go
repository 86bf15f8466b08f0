package configfile

import (
	"strings"
)

// Properties reads a Java .properties file as java.util.Properties.load
// does: `#`/`!` comment lines, the key ending at the first unescaped `=`,
// `:` or whitespace, a line ending in an odd number of backslashes
// continuing on the next line (its leading whitespace dropped), and
// backslash escapes. Start/End cover the whole value text, continuation
// lines included, so a replacement takes its place.
func Properties(data []byte) ([]Value, error) {
	var out []Value
	s := string(data)
	for off, n := 0, 1; off < len(s); {
		start, lines := logicalLine(s, off)
		line := n
		n += lines
		next := start.end
		if next < len(s) {
			next++ // the newline
		}
		i := skipSpace(s, off, start.end)
		if i == start.end || s[i] == '#' || s[i] == '!' {
			off = next
			continue
		}
		keyStart := i
		for i < start.end && !strings.ContainsRune("=: \t\f", rune(s[i])) {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		i = min(i, start.end) // a key ending in a lone backslash
		key := unescapeProperties(s[keyStart:i])
		i = skipSpace(s, i, start.end)
		if i < start.end && (s[i] == '=' || s[i] == ':') {
			i = skipSpace(s, i+1, start.end)
		}
		end := start.end
		if end > i && s[end-1] == '\r' {
			end--
		}
		out = append(out, Value{Key: key, Line: line, Col: i - off + 1, Start: i, End: end,
			Value: unescapeProperties(s[i:end]), render: escapeProperties})
		off = next
	}
	return out, nil
}

type span struct{ end int }

// logicalLine returns the end of the logical line starting at off (the
// offset of its last line's newline, or len(s)) and how many physical
// lines it spans.
func logicalLine(s string, off int) (span, int) {
	lines := 1
	for {
		nl := strings.IndexByte(s[off:], '\n')
		if nl < 0 {
			return span{len(s)}, lines
		}
		end := off + nl
		text := strings.TrimSuffix(s[off:end], "\r")
		bs := len(text) - len(strings.TrimRight(text, "\\"))
		if bs%2 == 0 || strings.HasPrefix(strings.TrimLeft(s[off:end], " \t\f"), "#") && lines == 1 {
			return span{end}, lines
		}
		off, lines = end+1, lines+1
	}
}

func skipSpace(s string, i, end int) int {
	for i < end && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f') {
		i++
	}
	return i
}

// unescapeProperties decodes escapes and joins continuation lines.
func unescapeProperties(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case '\r', '\n':
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			for i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t' || s[i+1] == '\f') {
				i++
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// escapeProperties writes a value on one line: backslashes doubled, a
// leading space escaped, line breaks as \n.
func escapeProperties(v string) string {
	v = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(v)
	if strings.HasPrefix(v, " ") {
		v = `\` + v
	}
	return v
}
