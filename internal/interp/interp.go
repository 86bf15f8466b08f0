// Package interp splits compose string values into literal text and
// interpolation references, so that rewriters can edit the literal parts of
// a value such as "jdbc:postgresql://${DB_HOST:-db}:5432/app" while keeping
// every reference exactly as written.
//
// Syntax follows the Compose Specification, "Interpolation": `$$` is a
// literal `$`; `$NAME` and `${NAME...}` (with `:-`, `-`, `:?`, `?`, `:+`, `+`
// modifiers and nested references in the default) are references.
package interp

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// placeholderBase is the first rune of the Unicode private-use area. Each
// reference is replaced by one rune from it, which no connection string
// legitimately contains and which the URL parsers treat as an opaque
// character.
const placeholderBase = 0xE000

// maxRefs bounds the references in one value (the size of the private-use
// area).
const maxRefs = 0xF8FF - placeholderBase

// Masked is a compose value with each reference replaced by a placeholder
// rune and each `$$` decoded to `$`.
type Masked struct {
	// Value is the masked text: literal characters plus placeholder runes.
	Value string
	// Refs holds the references as written, indexed by placeholder.
	Refs []string
}

// Mask splits raw, a compose string as written in YAML (after YAML
// unquoting), into a Masked value. It fails on an unterminated `${`, as
// compose does.
func Mask(raw string) (Masked, error) {
	var b strings.Builder
	var refs []string
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '$' {
			b.WriteByte(c)
			i++
			continue
		}
		n := byte(0)
		if i+1 < len(raw) {
			n = raw[i+1]
		}
		switch {
		case n == '$':
			b.WriteByte('$')
			i += 2
			continue
		case n == '{':
			end := closingBrace(raw, i+1)
			if end < 0 {
				return Masked{}, fmt.Errorf("invalid interpolation format: unterminated %q", raw[i:])
			}
			refs = append(refs, raw[i:end+1])
			i = end + 1
		case isNameStart(n):
			j := i + 2
			for j < len(raw) && isNameChar(raw[j]) {
				j++
			}
			refs = append(refs, raw[i:j])
			i = j
		default:
			// A `$` that starts no reference is literal in compose; keep it
			// as a one-character reference so Unmask writes it back as it
			// was, not as `$$`.
			refs = append(refs, "$")
			i++
		}
		if len(refs) > maxRefs {
			return Masked{}, fmt.Errorf("too many interpolation references in one value")
		}
		b.WriteRune(rune(placeholderBase + len(refs) - 1))
	}
	return Masked{Value: b.String(), Refs: refs}, nil
}

// Unmask turns a masked (possibly edited) value back into compose text:
// placeholders become their references again and every literal `$` is
// written `$$`, so compose's interpolation yields exactly the literal.
func (m Masked) Unmask(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '$':
			b.WriteString("$$")
		case r >= placeholderBase && int(r-placeholderBase) < len(m.Refs):
			b.WriteString(m.Refs[r-placeholderBase])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// IsPlaceholder reports whether r stands for a reference in a masked value.
func IsPlaceholder(r rune) bool { return r >= placeholderBase && r <= placeholderBase+maxRefs }

// Ref returns the reference text a placeholder stands for, if any.
func (m Masked) Ref(r rune) (string, bool) {
	if r < placeholderBase || int(r-placeholderBase) >= len(m.Refs) {
		return "", false
	}
	return m.Refs[r-placeholderBase], true
}

// closingBrace returns the index of the `}` that closes the `{` at open,
// counting nested `${`, or -1.
func closingBrace(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func isNameStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isNameChar(c byte) bool { return isNameStart(c) || (c >= '0' && c <= '9') }

// EscapeAt inspects the '%' at s[i] of a masked value: the decoded byte and
// ok for a valid %XX escape; literal is true when a placeholder rune within
// the next two characters may supply the digits (the text is kept as
// written, since only the variable's value decides). Shared by the JDBC and
// libpq parsers, which percent-decode the same way (RFC 3986 §2.1).
func EscapeAt(s string, i int) (b byte, ok, literal bool) {
	j := i + 1
	for n := 0; n < 2 && j < len(s); n++ {
		r, size := utf8.DecodeRuneInString(s[j:])
		if IsPlaceholder(r) {
			return 0, false, true
		}
		j += size
	}
	if i+2 >= len(s) {
		return 0, false, false
	}
	hi, ok1 := unhex(s[i+1])
	lo, ok2 := unhex(s[i+2])
	if !ok1 || !ok2 {
		return 0, false, false
	}
	return hi<<4 | lo, true, false
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// PortProblem checks a port as written in a masked URL: digits in 1..65535,
// or text with placeholder runes (the variable decides). It returns "" for
// a valid port, else the reason, for the caller to wrap in its own syntax
// error (jdbc and libpq share this rule).
func PortProblem(p string) string {
	if p == "" {
		return "empty port"
	}
	digitsOnly := true
	for _, r := range p {
		switch {
		case r >= '0' && r <= '9':
		case IsPlaceholder(r):
			digitsOnly = false
		default:
			return fmt.Sprintf("invalid port %q", p)
		}
	}
	if digitsOnly {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("port %q outside 1..65535", p)
		}
	}
	return ""
}

// Enclose returns m with prefix and suffix (compose text, kept as written)
// around it, and out enclosed the same way: for editing the default of a
// reference such as ${NAME:-default} while the reference stays as written.
func (m Masked) Enclose(out, prefix, suffix string) (Masked, string) {
	refs := append(append([]string{}, m.Refs...), prefix, suffix)
	pre := string(rune(placeholderBase + len(refs) - 2))
	suf := string(rune(placeholderBase + len(refs) - 1))
	return Masked{Value: pre + m.Value + suf, Refs: refs}, pre + out + suf
}
