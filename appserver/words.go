package appserver

import (
	"fmt"
	"strings"
)

// Word is one shell word of a command string: Text is the word as the
// program receives it (quotes removed), Start and End the byte range of
// its source text, quotes included.
type Word struct {
	Text       string
	Start, End int
}

// Split splits a command string into words the way compose does for a
// string-form command: POSIX shell quoting ('...', "...", backslash) and
// white space, with no expansion. An unterminated quote is an error.
func Split(s string) ([]Word, error) {
	var out []Word
	i := 0
	for {
		for i < len(s) && isBlank(s[i]) {
			i++
		}
		if i >= len(s) {
			return out, nil
		}
		start := i
		var b strings.Builder
		for i < len(s) && !isBlank(s[i]) {
			switch c := s[i]; c {
			case '\'':
				j := strings.IndexByte(s[i+1:], '\'')
				if j < 0 {
					return nil, fmt.Errorf("unterminated ' at byte %d", i)
				}
				b.WriteString(s[i+1 : i+1+j])
				i += j + 2
			case '"':
				i++
				for ; i < len(s) && s[i] != '"'; i++ {
					if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
						i++
					}
					b.WriteByte(s[i])
				}
				if i >= len(s) {
					return nil, fmt.Errorf("unterminated \" at byte %d", start)
				}
				i++
			case '\\':
				if i+1 < len(s) {
					b.WriteByte(s[i+1])
				}
				i += 2
			default:
				b.WriteByte(c)
				i++
			}
		}
		if i > len(s) {
			i = len(s)
		}
		out = append(out, Word{Text: b.String(), Start: start, End: i})
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Quote returns w as one shell word: unchanged when it holds only
// characters that need no quoting, else in single quotes.
func Quote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@%+") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
