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

// checkOps reports whether ops is an edit script turning x into y: kept
// lines equal, every line of x and y visited once, in order.
func checkOps(x, y []string, ops []diffOp) string {
	i, j := 0, 0
	for _, op := range ops {
		if op.i != i || op.j != j {
			return "op " + string(op.kind) + " at " + strconv.Itoa(op.i) + "," + strconv.Itoa(op.j) + ", want " + strconv.Itoa(i) + "," + strconv.Itoa(j)
		}
		switch op.kind {
		case ' ':
			if i >= len(x) || j >= len(y) || x[i] != y[j] {
				return "kept line differs at " + strconv.Itoa(i) + "," + strconv.Itoa(j)
			}
			i, j = i+1, j+1
		case '-':
			i++
		case '+':
			j++
		}
	}
	if i != len(x) || j != len(y) {
		return "ends at " + strconv.Itoa(i) + "," + strconv.Itoa(j)
	}
	return ""
}

// TestAnchoredDiff: the script for texts beyond the bounded search is an
// edit script (a valid, not always shortest, diff), on random texts with
// unique and repeated lines, and its unified form applies.
func TestAnchoredDiff(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	gen := func() []string {
		l := make([]string, r.Intn(60))
		for i := range l {
			if r.Intn(3) == 0 {
				l[i] = "u" + strconv.Itoa(r.Intn(40)) + "\n" // often unique
			} else {
				l[i] = []string{"a\n", "b\n", "c\n"}[r.Intn(3)]
			}
		}
		return l
	}
	for n := 0; n < 3000; n++ {
		x, y := gen(), gen()
		if msg := checkOps(x, y, anchoredDiff(x, y)); msg != "" {
			t.Fatalf("anchoredDiff(%q, %q): %s", x, y, msg)
		}
		if _, ok := editScript(x, y, 0); ok && len(x)+len(y) > 0 && strings.Join(x, "") != strings.Join(y, "") {
			t.Fatalf("editScript with no budget found a script for different texts")
		}
	}
	// The bounded search gives up on the shape of issue 25 (a 30,000-line
	// continued value made one line), and the whole diff still applies.
	old, new := continuedValue(30000)
	x, y := diffLines(old), diffLines(new)
	if _, ok := editScript(x, y, maxDiffWork); ok {
		t.Errorf("editScript found a 30,000-line script within %d steps: the fallback is not tested", maxDiffWork)
	}
	got, _ := applyDiff(t, string(old), string(unifiedDiff("a/f", old, "b/f", new)))
	if got != string(new) {
		t.Errorf("diff of the continued value does not apply")
	}
}

// continuedValue is a .properties file whose value continues over n lines
// (\ at each line end), before and after a migration made it one line,
// with unchanged settings around it.
func continuedValue(n int) (old, new []byte) {
	var o, w strings.Builder
	head := "# orders\nserver.port=8080\n"
	o.WriteString(head + "spring.datasource.url=jdbc:postgresql://db:5432/orders?\\\n")
	w.WriteString(head + "spring.datasource.url=jdbc:postgresql://localhost:5432/orders?")
	for i := range n {
		o.WriteString("    a" + strconv.Itoa(i) + "=1&\\\n")
		w.WriteString("a" + strconv.Itoa(i) + "=1&")
	}
	o.WriteString("    end=1\nspring.datasource.username=orders\n")
	w.WriteString("end=1\nspring.datasource.username=orders\n")
	return []byte(o.String()), []byte(w.String())
}

// BenchmarkUnifiedDiff is -d on the shapes of issue 25: a 30,000-line
// continued .properties value made one line (4.4 GB and out of memory
// before), 1,000 changes spread over a 100,000-line file, and two 20,000
// line texts with nothing in common. The bounded search (maxDiffWork, 32
// MB of frontiers at most) and the anchored fallback keep each linear in
// the lines.
//
//	go test ./cmd/uds-migrate -run '^$' -bench BenchmarkUnifiedDiff -benchtime 3x
func BenchmarkUnifiedDiff(b *testing.B) {
	spread := func() ([]byte, []byte) {
		var o, n strings.Builder
		for i := range 100000 {
			line := "      KEY_" + strconv.Itoa(i) + ": value\n"
			o.WriteString(line)
			if i%100 == 0 {
				line = "      KEY_" + strconv.Itoa(i) + ": changed\n"
			}
			n.WriteString(line)
		}
		return []byte(o.String()), []byte(n.String())
	}
	disjoint := func() ([]byte, []byte) {
		var o, n strings.Builder
		for i := range 20000 {
			o.WriteString("old " + strconv.Itoa(i) + "\n")
			n.WriteString("new " + strconv.Itoa(i) + "\n")
		}
		return []byte(o.String()), []byte(n.String())
	}
	for _, c := range []struct {
		name string
		gen  func() ([]byte, []byte)
	}{
		{"continued-30000", func() ([]byte, []byte) { return continuedValue(30000) }},
		{"spread-1000-of-100000", spread},
		{"disjoint-20000", disjoint},
	} {
		old, new := c.gen()
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(old) + len(new)))
			for b.Loop() {
				if d := unifiedDiff("a/f", old, "b/f", new); len(d) == 0 {
					b.Fatal("no diff")
				}
			}
		})
	}
}
