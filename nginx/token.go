// Package nginx reads nginx configuration files well enough to find and
// rewrite where a reverse proxy sends requests (upstream servers and the
// proxy_pass family), keeping every other byte of the file as written:
// tabs, comments, includes and quoting.
//
// It follows the tokenizer of nginx itself (src/core/ngx_conf_file.c,
// ngx_conf_read_token): words are separated by white space, ';' and '{'
// end a word, '}' does not, '#' starts a comment only where a word could
// start, a backslash escapes the next byte (inside quotes too), a closing
// quote must be followed by a separator or ')', and "${name}" keeps its
// braces inside a word. It does not follow
// include directives: the caller decides which files to read.
package nginx

import (
	"fmt"
	"strings"
)

// Kind is the kind of a token.
type Kind int

const (
	Word      Kind = iota // a directive name or argument, possibly quoted
	Semicolon             // ';' ending a simple directive
	Open                  // '{' opening a block
	Close                 // '}' closing a block
	Comment               // '#' to the end of the line
)

// Token is one lexical element of a configuration file. Start and End are
// byte offsets into the file ([Start, End), quotes included for a quoted
// word); Value is the word with quotes removed and backslash escapes
// resolved as nginx resolves them.
type Token struct {
	Kind       Kind
	Value      string
	Start, End int
	Quote      byte // '"' or '\'' for a quoted word, else 0
}

// Raw returns the token's text exactly as written in data.
func (t Token) Raw(data []byte) string { return string(data[t.Start:t.End]) }

// SyntaxError is a configuration that nginx itself would reject, at a
// 1-based line and column (columns count bytes, as nginx reports them).
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// Position converts a byte offset of data to a 1-based line and column.
func Position(data []byte, off int) (line, col int) {
	line, start := 1, 0
	for i := 0; i < off && i < len(data); i++ {
		if data[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	return line, off - start + 1
}

func errAt(data []byte, off int, format string, args ...any) error {
	l, c := Position(data, off)
	return &SyntaxError{Line: l, Col: c, Msg: fmt.Sprintf(format, args...)}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// Tokenize splits data into tokens. It returns a *SyntaxError for an
// unterminated quote or a quote followed by something other than a
// separator, which nginx rejects with "unexpected ...".
func Tokenize(data []byte) ([]Token, error) {
	var out []Token
	i := 0
	for i < len(data) {
		c := data[i]
		switch {
		case isSpace(c):
			i++
		case c == ';':
			out = append(out, Token{Kind: Semicolon, Value: ";", Start: i, End: i + 1})
			i++
		case c == '{':
			out = append(out, Token{Kind: Open, Value: "{", Start: i, End: i + 1})
			if n := len(out); n > 1 && out[n-2].Kind == Word && strings.HasSuffix(out[n-2].Value, "_by_lua_block") {
				end := luaEnd(data, i)
				if end < 0 {
					return nil, errAt(data, i, "unterminated %s", out[n-2].Value)
				}
				out = append(out, Token{Kind: Close, Value: "}", Start: end - 1, End: end})
				i = end
				continue
			}
			i++
		case c == '}':
			out = append(out, Token{Kind: Close, Value: "}", Start: i, End: i + 1})
			i++
		case c == '#':
			j := i
			for j < len(data) && data[j] != '\n' {
				j++
			}
			end := j
			if end > i && data[end-1] == '\r' {
				end--
			}
			out = append(out, Token{Kind: Comment, Value: string(data[i:end]), Start: i, End: end})
			i = j
		case c == '"' || c == '\'':
			t, err := quoted(data, i)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
			i = t.End
		default:
			t := word(data, i)
			out = append(out, t)
			i = t.End
		}
	}
	return out, nil
}

// quoted reads a quoted word starting at the quote at i.
func quoted(data []byte, i int) (Token, error) {
	q := data[i]
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case q:
			// After the closing quote nginx needs a separator, or ')':
			// the ')' of if ($h = "a\"b") starts the next word
			// (ngx_conf_read_token, need_space).
			end := j + 1
			if end < len(data) && !isSpace(data[end]) && data[end] != ';' && data[end] != '{' && data[end] != ')' {
				return Token{}, errAt(data, end, "unexpected %q after a quoted string", data[end])
			}
			return Token{Kind: Word, Value: unescape(data[i+1 : j]), Start: i, End: end, Quote: q}, nil
		}
	}
	return Token{}, errAt(data, i, "unterminated %c string", q)
}

// word reads an unquoted word starting at i: up to white space, ';' or '{'
// (except the '{' of "${"). A backslash escapes the next byte.
func word(data []byte, i int) Token {
	j := i
	for j < len(data) {
		c := data[j]
		if isSpace(c) || c == ';' {
			break
		}
		if c == '\\' && j+1 < len(data) {
			j += 2
			continue
		}
		if c == '{' {
			if j == i || data[j-1] != '$' {
				break
			}
			for j < len(data) && data[j] != '}' && !isSpace(data[j]) { // "${name}"
				j++
			}
			continue
		}
		j++
	}
	return Token{Kind: Word, Value: unescape(data[i:j]), Start: i, End: j}
}

// unescape resolves backslashes as nginx does for every word, quoted or
// not: \", \', \\ give the character, \t \r \n the control character,
// and any other backslash stays (so the regex "\.php$" keeps it).
func unescape(raw []byte) string {
	var b strings.Builder
	for k := 0; k < len(raw); k++ {
		if raw[k] == '\\' && k+1 < len(raw) {
			switch n := raw[k+1]; n {
			case '"', '\'', '\\':
				b.WriteByte(n)
				k++
				continue
			case 't', 'r', 'n':
				b.WriteByte(map[byte]byte{'t': '\t', 'r': '\r', 'n': '\n'}[n])
				k++
				continue
			}
		}
		b.WriteByte(raw[k])
	}
	return b.String()
}

// luaEnd returns the offset just past the '}' closing the OpenResty
// *_by_lua_block opened at open: the block holds Lua, so braces are counted
// outside Lua strings and comments, not tokenized.
func luaEnd(data []byte, open int) int {
	depth := 0
	for i := open; i < len(data); i++ {
		switch c := data[i]; c {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i + 1
			}
		case '"', '\'':
			for i++; i < len(data) && data[i] != c && data[i] != '\n'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '-':
			if i+1 < len(data) && data[i+1] == '-' {
				for i < len(data) && data[i] != '\n' {
					i++
				}
			}
		}
	}
	return -1
}
