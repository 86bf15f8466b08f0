package main

import (
	"bytes"
	"fmt"
	"strings"
)

// unifiedDiff returns the unified diff (3 lines of context, the format
// git apply and patch take) of old and new, or nil when they are equal.
// The edit script is a shortest one (Myers, "An O(ND) Difference Algorithm
// and Its Variations", 1986): a line the migration did not change is never
// shown removed and added again. go-internal's anchored diff, used before,
// matches only lines unique in both texts, so an unchanged line repeated
// elsewhere in the file ("LOG_LEVEL: info" in two services) sitting
// between two changed lines came out as - and + (issue: user trial).
func unifiedDiff(oldName string, old []byte, newName string, new []byte) []byte {
	if bytes.Equal(old, new) {
		return nil
	}
	x, y := diffLines(old), diffLines(new)
	ops := editScript(x, y)
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

// editScript returns a shortest edit script turning x into y.
func editScript(x, y []string) []diffOp {
	n, m := len(x), len(y)
	off := n + m + 1
	v := make([]int, 2*off+1)
	var trace [][]int
	for d := 0; d <= n+m; d++ {
		// The frontier before step d, diagonals -d-1..d+1 (all step d
		// reads): O(D²) memory, D the number of changed lines.
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			i := v[off+k-1] + 1 // a deletion from diagonal k-1
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				i = v[off+k+1] // an insertion from diagonal k+1
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
			}
			v[off+k] = i
			if i >= n && j >= m {
				return backtrack(trace, n, m)
			}
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
