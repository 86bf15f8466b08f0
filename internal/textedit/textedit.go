// Package textedit is the one byte-splicing primitive of uds-migrate: every
// file it changes (compose files, env files, app server and nginx
// configuration) is its original bytes with a list of Edits applied, so
// that everything outside the edited ranges stays byte-identical.
//
// The shape follows golang.org/x/tools internal/diff (diff.go: Edit{Start,
// End, New} and Apply, which sorts, rejects overlaps and keeps the order of
// insertions at one offset).
package textedit

import (
	"fmt"
	"sort"
)

// Edit replaces bytes [Start, End) of a file with New; Start == End is an
// insertion. Offsets are byte offsets into the original data.
type Edit struct {
	Start, End int
	New        string
}

// Apply returns data with edits applied; data and edits are not modified.
// Edits are ordered by (Start, End), stably, so insertions at one offset
// come out in the order they were made, and an insertion comes before a
// replacement that starts where it is. An edit outside data, or one that
// overlaps another, is an error: it is a bug in whoever planned the edits.
func Apply(data []byte, edits []Edit) ([]byte, error) {
	es := edits
	if !sort.SliceIsSorted(es, func(i, j int) bool { return less(es[i], es[j]) }) {
		es = append([]Edit(nil), edits...)
		sort.SliceStable(es, func(i, j int) bool { return less(es[i], es[j]) })
	}
	size, last := len(data), 0
	for _, e := range es {
		if e.Start < 0 || e.Start > e.End || e.End > len(data) {
			return nil, fmt.Errorf("edit [%d, %d) outside the %d bytes of the file", e.Start, e.End, len(data))
		}
		if e.Start < last {
			return nil, fmt.Errorf("overlapping edits at byte %d", e.Start)
		}
		size += len(e.New) - (e.End - e.Start)
		last = e.End
	}
	out := make([]byte, 0, size)
	last = 0
	for _, e := range es {
		out = append(out, data[last:e.Start]...)
		out = append(out, e.New...)
		last = e.End
	}
	return append(out, data[last:]...), nil
}

func less(a, b Edit) bool {
	if a.Start != b.Start {
		return a.Start < b.Start
	}
	return a.End < b.End
}
