package rewrite

import (
	"fmt"
	"sort"
	"strings"
)

// edit replaces bytes [start, end) of one file with text; start == end is an
// insertion.
type edit struct {
	src        *Source
	start, end int
	text       string
	seq        int // creation order, to keep insertions at one offset in order
}

// apply splices edits into each file's original bytes, last offset first, so
// nothing outside the edited ranges moves. Overlapping edits are a bug.
func apply(src *Source, edits []edit) ([]byte, error) {
	var mine []edit
	for _, e := range edits {
		if e.src == src {
			mine = append(mine, e)
		}
	}
	sort.SliceStable(mine, func(i, j int) bool {
		if mine[i].start != mine[j].start {
			return mine[i].start > mine[j].start
		}
		return mine[i].seq > mine[j].seq
	})
	out := append([]byte(nil), src.Data...)
	limit := len(out) + 1
	for _, e := range mine {
		if e.end > limit || e.end < e.start {
			return nil, fmt.Errorf("internal error: overlapping edits in %s at byte %d", src.Path, e.start)
		}
		limit = e.start
		if e.start == e.end {
			limit++ // several insertions may share one offset
		}
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
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
