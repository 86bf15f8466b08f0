package configfile

import (
	"fmt"
	"strings"
)

// INI reads an INI file as Python's configparser.RawConfigParser reads it
// with its defaults (pretalx.cfg): `[section]` headers, `key = value` or
// `key: value` options split at the first = or :, keys lower-cased
// (optionxform), values with surrounding whitespace stripped, whole-line
// comments starting with # or ; and no inline comments. Keys are
// SECTION.KEY (database.host). An option whose value continues on
// indented lines below it is left out (its value is several lines), as are
// options before the first section (configparser refuses the file). A
// section or option given twice is an error, as configparser's strict mode
// makes it. Start/End cover the value text on its line, so a replacement
// takes its place; values are written as they are read (render is the
// identity: configparser unescapes nothing).
func INI(data []byte) ([]Value, error) {
	s := string(data)
	var out []Value
	section := ""
	seen := map[string]bool{}
	last := -1      // index in out of the option above, while it may continue
	lastIndent := 0 // its indentation
	for off, n := 0, 1; off < len(s); n++ {
		end := strings.IndexByte(s[off:], '\n')
		next := len(s)
		if end < 0 {
			end = len(s)
		} else {
			end += off
			next = end + 1
		}
		line := strings.TrimSuffix(s[off:end], "\r")
		body := strings.TrimLeft(line, " \t")
		indent := len(line) - len(body)
		switch {
		case strings.TrimSpace(body) == "" || body[0] == '#' || body[0] == ';':
		case indent > lastIndent && last >= 0:
			// a continuation line: the option above has a value of
			// several lines, which this reader does not edit
			out = out[:last]
			last = -1
		case body[0] == '[' && strings.Contains(body, "]"):
			section = body[1:strings.IndexByte(body, ']')]
			if seen["["+section] {
				return nil, fmt.Errorf("line %d: section %q already exists", n, section)
			}
			seen["["+section] = true
			last = -1
		default:
			i := strings.IndexAny(body, "=:")
			if i < 0 || section == "" {
				// a key without a value (allow_no_value is off), or an
				// option outside any section: configparser refuses it
				return nil, fmt.Errorf("line %d: not a section header or an option of a section", n)
			}
			key := strings.ToLower(strings.TrimSpace(body[:i]))
			full := section + "." + key
			if seen[full] {
				return nil, fmt.Errorf("line %d: option %q in section %q already exists", n, key, section)
			}
			seen[full] = true
			vs := off + indent + i + 1
			raw := line[indent+i+1:]
			lead := len(raw) - len(strings.TrimLeft(raw, " \t"))
			val := strings.TrimSpace(raw)
			start := vs + lead
			out = append(out, Value{Key: full, Line: n, Col: start - off + 1, Start: start, End: start + len(val), Value: val,
				render: func(v string) string { return v }})
			last, lastIndent = len(out)-1, indent
		}
		off = next
	}
	return out, nil
}
