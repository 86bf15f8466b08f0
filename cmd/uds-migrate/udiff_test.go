package main

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestUnifiedDiffMinimal checks that the diff applies (old + hunks = new)
// and changes no more lines than a longest common subsequence leaves,
// on random texts with many repeated lines (where an anchored diff is
// not minimal).
func TestUnifiedDiffMinimal(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	words := []string{"a\n", "b\n", "c\n", "image: x\n", "environment:\n"}
	gen := func() []string {
		l := make([]string, r.Intn(25))
		for i := range l {
			l[i] = words[r.Intn(len(words))]
		}
		return l
	}
	for n := 0; n < 3000; n++ {
		x, y := gen(), gen()
		if n%7 == 0 && len(y) > 0 {
			y[len(y)-1] = strings.TrimSuffix(y[len(y)-1], "\n") // no final newline
		}
		old, new := strings.Join(x, ""), strings.Join(y, "")
		d := string(unifiedDiff("a/f", []byte(old), "b/f", []byte(new)))
		if old == new {
			if d != "" {
				t.Fatalf("diff of equal texts: %q", d)
			}
			continue
		}
		got, changed := applyDiff(t, old, d)
		if got != new {
			t.Fatalf("old %q + diff\n%s= %q, want %q", old, d, got, new)
		}
		xs, ys := diffLines([]byte(old)), diffLines([]byte(new))
		if want := len(xs) + len(ys) - 2*lcs(xs, ys); changed != want {
			t.Fatalf("diff of %q → %q changes %d lines, the minimum is %d:\n%s", old, new, changed, want, d)
		}
	}
}

// applyDiff applies a unified diff to old, checking each hunk's header
// and context against old, and counts the - and + lines.
func applyDiff(t *testing.T, old, d string) (string, int) {
	t.Helper()
	src := diffLines([]byte(old))
	var out []string
	pos, changed := 0, 0
	lines := strings.SplitAfter(d, "\n")
	for i := 3; i < len(lines) && lines[i] != ""; {
		var a, b, c, e int
		h := strings.NewReplacer("@@ -", "", ",", " ", " +", " ", " @@\n", "").Replace(lines[i])
		f := strings.Fields(h)
		a, _ = strconv.Atoi(f[0])
		b, _ = strconv.Atoi(f[1])
		c, _ = strconv.Atoi(f[2])
		e, _ = strconv.Atoi(f[3])
		_ = c
		start := a - 1
		if b == 0 {
			start = a
		}
		out = append(out, src[pos:start]...)
		pos = start
		i++
		nx, ny := 0, 0
		for i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@") {
			line := lines[i][1:]
			if strings.HasPrefix(lines[i+min(1, len(lines)-1-i)], "\\ No newline") {
				line += lines[i+1]
				i++
			}
			switch lines[i-strings.Count(line, "\\ No newline")][0] {
			case ' ':
				if src[pos] != line {
					t.Fatalf("context %q does not match %q", line, src[pos])
				}
				out = append(out, line)
				pos++
				nx++
				ny++
			case '-':
				if src[pos] != line {
					t.Fatalf("removed %q does not match %q", line, src[pos])
				}
				pos++
				nx++
				changed++
			case '+':
				out = append(out, line)
				ny++
				changed++
			}
			i++
		}
		if nx != b || ny != e {
			t.Fatalf("hunk header %q counts %d,%d lines, the hunk has %d,%d", lines[i], b, e, nx, ny)
		}
	}
	out = append(out, src[pos:]...)
	return strings.ReplaceAll(strings.Join(out, ""), "\n\\ No newline at end of file\n", ""), changed
}

func lcs(x, y []string) int {
	t := make([][]int, len(x)+1)
	for i := range t {
		t[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t[0][0]
}
