package rewrite

import (
	"fmt"
	"strings"

	"github.com/uds-migrate/uds-migrate/internal/textedit"
)

// edit replaces bytes [start, end) of one compose file with text; start ==
// end is an insertion.
type edit struct {
	src        *Source
	start, end int
	text       string
}

// apply splices the edits of src into its original bytes (textedit.Apply):
// nothing outside the edited ranges moves, and insertions at one offset
// keep the order they were planned in. Overlapping edits are a bug.
func apply(src *Source, edits []edit) ([]byte, error) {
	var mine []textedit.Edit
	for _, e := range edits {
		if e.src == src {
			mine = append(mine, textedit.Edit{Start: e.start, End: e.end, New: e.text})
		}
	}
	out, err := textedit.Apply(src.Data, mine)
	if err != nil {
		return nil, fmt.Errorf("internal error: %s: %w", src.Path, err)
	}
	return out, nil
}

// withEOL rewrites "\n" line endings in generated text to the file's own.
func (s *Source) withEOL(text string) string {
	if s.eol == "\n" {
		return text
	}
	return strings.ReplaceAll(text, "\n", s.eol)
}
