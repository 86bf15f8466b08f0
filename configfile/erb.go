package configfile

import (
	"bytes"
	"errors"
)

// ERBTag is one <% ... %> tag of an ERB template, by byte range [Start, End).
type ERBTag struct{ Start, End int }

// ERBTags lists the tags of an ERB template (Rails' config/database.yml is
// ERB first, YAML second). `<%%` is ERB's escape for a literal `<%` and
// opens no tag.
func ERBTags(data []byte) ([]ERBTag, error) {
	var out []ERBTag
	for i := 0; i < len(data); {
		j := bytes.Index(data[i:], []byte("<%"))
		if j < 0 {
			break
		}
		start := i + j
		if bytes.HasPrefix(data[start:], []byte("<%%")) {
			i = start + 3
			continue
		}
		k := bytes.Index(data[start+2:], []byte("%>"))
		if k < 0 {
			return nil, errors.New("unterminated ERB tag <%")
		}
		end := start + 2 + k + 2
		out = append(out, ERBTag{start, end})
		i = end
	}
	return out, nil
}

// MaskERB returns data with every output tag (<%= %>) replaced by as many
// 'x' bytes and every other tag (<% if %>, <%# %>) by spaces, newlines
// kept: a YAML parser sees a plain scalar where a tag's output goes, blank
// text where control flow was (both branches of an if are read), and every
// position stays the template's own.
func MaskERB(data []byte) ([]byte, []ERBTag, error) {
	tags, err := ERBTags(data)
	if err != nil {
		return nil, nil, err
	}
	out := bytes.Clone(data)
	for _, t := range tags {
		fill := byte(' ')
		if bytes.HasPrefix(data[t.Start:], []byte("<%=")) {
			fill = 'x'
		}
		for i := t.Start; i < t.End; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = fill
			}
		}
	}
	return out, tags, nil
}
