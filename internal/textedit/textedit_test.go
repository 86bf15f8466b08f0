package textedit

import (
	"slices"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	for _, c := range []struct {
		name  string
		edits []Edit
		want  string
	}{
		{"none", nil, "abcdef"},
		{"replace", []Edit{{1, 3, "XY"}}, "aXYdef"},
		{"delete", []Edit{{2, 4, ""}}, "abef"},
		{"insert at ends", []Edit{{6, 6, "!"}, {0, 0, "^"}}, "^abcdef!"},
		{"unsorted", []Edit{{4, 5, "E"}, {0, 1, "A"}, {2, 3, "C"}}, "AbCdEf"},
		{"insertions at one offset keep their order", []Edit{{3, 3, "1"}, {3, 3, "2"}, {3, 3, "3"}}, "abc123def"},
		{"insertion before a replacement at its start", []Edit{{2, 4, "R"}, {2, 2, "i"}}, "abiRef"},
		{"insertion at a replacement's end", []Edit{{4, 4, "i"}, {2, 4, "R"}}, "abRief"},
		{"adjacent replacements", []Edit{{2, 4, "R"}, {0, 2, "L"}}, "LRef"},
	} {
		data := []byte("abcdef")
		edits := slices.Clone(c.edits)
		got, err := Apply(data, edits)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
		if string(data) != "abcdef" || !slices.Equal(edits, c.edits) {
			t.Errorf("%s: Apply modified its input", c.name)
		}
	}
}

func TestApplyRejects(t *testing.T) {
	for _, c := range []struct {
		name  string
		edits []Edit
		want  string
	}{
		{"overlap", []Edit{{1, 4, "x"}, {3, 5, "y"}}, "overlapping edits at byte 3"},
		{"one inside another", []Edit{{1, 5, "x"}, {2, 3, "y"}}, "overlapping edits at byte 2"},
		{"two replacements at one start", []Edit{{1, 2, "x"}, {1, 3, "y"}}, "overlapping edits at byte 1"},
		{"insertion inside a replacement", []Edit{{1, 4, "x"}, {2, 2, "y"}}, "overlapping edits at byte 2"},
		{"past the end", []Edit{{5, 7, "x"}}, "outside the 6 bytes"},
		{"negative", []Edit{{-1, 0, "x"}}, "outside the 6 bytes"},
		{"end before start", []Edit{{3, 2, "x"}}, "outside the 6 bytes"},
	} {
		_, err := Apply([]byte("abcdef"), c.edits)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
