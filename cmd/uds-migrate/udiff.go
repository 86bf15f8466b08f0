package main

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// unifiedDiff returns the unified diff (3 lines of context, the format
// git apply and patch take) of old and new, or nil when they are equal.
// The edit script is a shortest one (Myers, "An O(ND) Difference Algorithm
// and Its Variations", 1986) when that takes at most maxDiffWork steps: a
// line the migration did not change is never shown removed and added
// again. go-internal's anchored diff, used before, matches only lines
// unique in both texts, so an unchanged line repeated elsewhere in the file
// ("LOG_LEVEL: info" in two services) sitting between two changed lines
// came out as - and + (issue: user trial). Beyond that bound (thousands of
// changed lines: a 30,000-line continued value made one line took 4.4 GB,
// issue 25) the texts are cut at lines unique to both and each piece gets
// the same bounded search, or is shown removed and added whole: time and
// memory linear in the lines (BenchmarkUnifiedDiff).
func unifiedDiff(oldName string, old []byte, newName string, new []byte) []byte {
	if bytes.Equal(old, new) {
		return nil
	}
	x, y := diffLines(old), diffLines(new)
	ops := lineDiff(x, y)
	var out bytes.Buffer
	fmt.Fprintf(&out, "diff %s %s\n--- %s\n+++ %s\n", oldName, newName, oldName, newName)
	for _, h := range hunks(ops) {
		writeHunk(&out, ops[h[0]:h[1]], x, y)
	}
	return out.Bytes()
}

// diffLines splits text into lines that keep their "\n"; a last line
// without one carries the marker diff and git print for it.
func diffLines(b []byte) []string {
	l := strings.SplitAfter(string(b), "\n")
	if l[len(l)-1] == "" {
		return l[:len(l)-1]
	}
	l[len(l)-1] += "\n\\ No newline at end of file\n"
	return l
}

// diffOp is one step of an edit script: keep x[i] (= y[j]), delete x[i]
// or insert y[j].
type diffOp struct {
	kind byte // ' ', '-' or '+'
	i, j int  // line indexes in x and y before this step
}

// maxDiffWork bounds the shortest-script search, in diagonals visited
// plus lines compared; its saved frontiers hold at most as many ints
// (8 bytes each): 32 MB. A migration's diff needs a few thousand.
const maxDiffWork = 4 << 20

// lineDiff returns an edit script turning x into y: the shortest (within
// maxDiffWork), else anchoredDiff's.
func lineDiff(x, y []string) []diffOp {
	// A common head and tail belong to some shortest script: keep them
	// out of the search.
	p := 0
	for p < len(x) && p < len(y) && x[p] == y[p] {
		p++
	}
	s := 0
	for s < len(x)-p && s < len(y)-p && x[len(x)-1-s] == y[len(y)-1-s] {
		s++
	}
	ops := make([]diffOp, 0, len(x)+len(y))
	for k := 0; k < p; k++ {
		ops = append(ops, diffOp{' ', k, k})
	}
	mx, my := x[p:len(x)-s], y[p:len(y)-s]
	mid, ok := editScript(mx, my, maxDiffWork)
	if !ok {
		mid = anchoredDiff(mx, my)
	}
	for _, op := range mid {
		ops = append(ops, diffOp{op.kind, op.i + p, op.j + p})
	}
	for k := 0; k < s; k++ {
		ops = append(ops, diffOp{' ', len(x) - s + k, len(y) - s + k})
	}
	return ops
}

// anchoredDiff is the edit script for texts too far apart for the bounded
// search: the lines that occur once in each text, matched in an order both
// keep (a longest increasing subsequence), cut x and y into pieces; each
// piece gets editScript with a budget of 64 steps per line, or is deleted
// and inserted whole. Time and memory O(n log n) in the lines.
func anchoredDiff(x, y []string) []diffOp {
	count := map[string][2]int{}
	for _, l := range x {
		c := count[l]
		c[0]++
		count[l] = c
	}
	for _, l := range y {
		c := count[l]
		c[1]++
		count[l] = c
	}
	at := map[string]int{}
	for j, l := range y {
		if count[l] == [2]int{1, 1} {
			at[l] = j
		}
	}
	var pairs [][2]int // (i, j) of lines unique in both, by i
	for i, l := range x {
		if j, ok := at[l]; ok {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	anchors := increasing(pairs)
	var ops []diffOp
	pi, pj := 0, 0
	piece := func(i, j int) {
		px, py := x[pi:i], y[pj:j]
		sub, ok := editScript(px, py, 64*(len(px)+len(py))+1024)
		if !ok {
			sub = sub[:0]
			for k := range px {
				sub = append(sub, diffOp{'-', k, 0})
			}
			for k := range py {
				sub = append(sub, diffOp{'+', len(px), k})
			}
		}
		for _, op := range sub {
			ops = append(ops, diffOp{op.kind, op.i + pi, op.j + pj})
		}
	}
	for _, a := range anchors {
		piece(a[0], a[1])
		ops = append(ops, diffOp{' ', a[0], a[1]})
		pi, pj = a[0]+1, a[1]+1
	}
	piece(len(x), len(y))
	return ops
}

// increasing returns a longest subsequence of pairs (sorted by [0]) whose
// [1] increase too (patience sorting, O(n log n)).
func increasing(pairs [][2]int) [][2]int {
	var tails []int // tails[k]: index in pairs of the last pair of the best run of length k+1
	prev := make([]int, len(pairs))
	for n, p := range pairs {
		k := sort.Search(len(tails), func(k int) bool { return pairs[tails[k]][1] >= p[1] })
		prev[n] = -1
		if k > 0 {
			prev[n] = tails[k-1]
		}
		if k == len(tails) {
			tails = append(tails, n)
		} else {
			tails[k] = n
		}
	}
	out := make([][2]int, len(tails))
	if len(tails) == 0 {
		return out
	}
	n := tails[len(tails)-1]
	for k := len(out) - 1; k >= 0; k-- {
		out[k] = pairs[n]
		n = prev[n]
	}
	return out
}

// editScript returns a shortest edit script turning x into y, or false
// when the search takes more than budget steps (diagonals visited plus
// lines compared), which also bounds the memory of the saved frontiers.
func editScript(x, y []string, budget int) ([]diffOp, bool) {
	n, m := len(x), len(y)
	off := n + m + 1
	v := make([]int, 2*off+1)
	var trace [][]int
	work := 0
	for d := 0; d <= n+m; d++ {
		// The frontier before step d, diagonals -d-1..d+1 (all step d
		// reads): O(D²) memory, D the number of changed lines.
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		work += 2*d + 3
		for k := -d; k <= d; k += 2 {
			i := v[off+k-1] + 1 // a deletion from diagonal k-1
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				i = v[off+k+1] // an insertion from diagonal k+1
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
				work++
			}
			v[off+k] = i
			if i >= n && j >= m {
				return backtrack(trace, n, m), true
			}
		}
		if work > budget {
			return nil, false
		}
	}
	panic("unreachable: an edit script of n+m steps always exists")
}

// backtrack walks the saved frontiers back from (n, m) to (0, 0).
func backtrack(trace [][]int, i, j int) []diffOp {
	var rev []diffOp
	for d := len(trace) - 1; d >= 0; d-- {
		at := func(k int) int { return trace[d][k+d+1] }
		k := i - j
		prevK := k - 1
		if k == -d || k != d && at(k-1) < at(k+1) {
			prevK = k + 1
		}
		pi := at(prevK)
		pj := pi - prevK
		for i > pi && j > pj {
			i, j = i-1, j-1
			rev = append(rev, diffOp{' ', i, j})
		}
		if d == 0 {
			break
		}
		if i == pi {
			j--
			rev = append(rev, diffOp{'+', i, j})
		} else {
			i--
			rev = append(rev, diffOp{'-', i, j})
		}
	}
	for a, b := 0, len(rev)-1; a < b; a, b = a+1, b-1 {
		rev[a], rev[b] = rev[b], rev[a]
	}
	return rev
}

const diffContext = 3

// hunks groups the changes of ops into [start, end) ranges with up to
// diffContext kept lines around them; changes closer than twice that share
// a hunk.
func hunks(ops []diffOp) [][2]int {
	var out [][2]int
	for i := 0; i < len(ops); i++ {
		if ops[i].kind == ' ' {
			continue
		}
		start := max(0, i-diffContext)
		end := i
		for end < len(ops) {
			next := end
			for next < len(ops) && ops[next].kind != ' ' {
				next++
			}
			gap := next
			for gap < len(ops) && ops[gap].kind == ' ' {
				gap++
			}
			if gap == len(ops) || gap-next > 2*diffContext {
				end = min(len(ops), next+diffContext)
				break
			}
			end = gap
		}
		out = append(out, [2]int{start, end})
		i = end - 1
	}
	return out
}

// writeHunk prints one hunk with its @@ -a,b +c,d @@ header; a side with
// no lines is numbered by the line before it, as diff -u does.
func writeHunk(out *bytes.Buffer, ops []diffOp, x, y []string) {
	var nx, ny int
	for _, op := range ops {
		if op.kind != '+' {
			nx++
		}
		if op.kind != '-' {
			ny++
		}
	}
	sx, sy := ops[0].i, ops[0].j
	if nx > 0 {
		sx++
	}
	if ny > 0 {
		sy++
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", sx, nx, sy, ny)
	for _, op := range ops {
		if op.kind == '+' {
			out.WriteString("+" + y[op.j])
		} else {
			out.WriteString(string(op.kind) + x[op.i])
		}
	}
}
