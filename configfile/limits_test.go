package configfile

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// nested writes a value nested depth levels deep, one level a line, in
// each format's syntax.
func nested(format string, depth int) string {
	switch format {
	case "json":
		return strings.Repeat("{\"a\":\n", depth) + "\"postgres://db/x\"" + strings.Repeat("}", depth) + "\n"
	case "hjson":
		return strings.Repeat("{a: ", depth) + "\"postgres://db/x\"" + strings.Repeat("}", depth) + "\n"
	}
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	b.WriteString(strings.Repeat(" ", depth) + "b: postgres://db/x\n")
	return b.String()
}

var readers = map[string]func([]byte) ([]Value, error){"json": JSON, "hjson": HJSON, "yaml": YAML}

// TestDepthLimit: JSON, Hjson and YAML configs nested MaxDepth levels are
// read; one level more is a *LimitError at the object past the limit (its
// brace; in YAML, the mapping's first key).
func TestDepthLimit(t *testing.T) {
	for name, read := range readers {
		// YAML's leaf is a key of its own level.
		ok := MaxDepth
		if name == "yaml" {
			ok--
		}
		vals, err := read([]byte(nested(name, ok)))
		if err != nil || len(vals) != 1 || vals[0].Value != "postgres://db/x" {
			t.Errorf("%s, %d levels: %v, %v", name, ok, vals, err)
		}
		_, err = read([]byte(nested(name, ok+1)))
		want := map[string][2]int{"json": {ok + 1, 1}, "hjson": {1, 4*ok + 1}, "yaml": {ok + 2, ok + 2}}[name]
		var le *LimitError
		if !errors.As(err, &le) || [2]int{le.Line, le.Col} != want || !strings.Contains(le.Msg, "nested more than 64 levels") {
			t.Errorf("%s, %d levels: %v, want a LimitError at %d:%d", name, ok+1, err, want[0], want[1])
		}
	}
}

// manyValues is a file of n settings in the format's syntax.
func manyValues(format string, n int) []byte {
	var b strings.Builder
	switch format {
	case "json":
		b.WriteString("{\n")
		for i := range n {
			fmt.Fprintf(&b, "  \"k%d\": \"v%d\",\n", i, i)
		}
		b.WriteString("  \"url\": \"postgres://db/x\"\n}\n")
	case "hjson":
		for i := range n {
			fmt.Fprintf(&b, "k%d: v%d\n", i, i)
		}
	case "yaml":
		for i := range n {
			fmt.Fprintf(&b, "k%d: v%d\n", i, i)
		}
	case "properties":
		for i := range n {
			fmt.Fprintf(&b, "k%d=v%d\n", i, i)
		}
	}
	return []byte(b.String())
}

// BenchmarkConfigValues reads files of 1,000 and 20,000 settings (about
// 20 KB and 500 KB, the size limit for project files) in each format:
// time grows with the settings, not their square (before issue 25 the
// JSON and Hjson readers counted lines from the start for every value).
//
//	go test ./configfile -run '^$' -bench BenchmarkConfigValues
func BenchmarkConfigValues(b *testing.B) {
	all := map[string]func([]byte) ([]Value, error){"json": JSON, "hjson": HJSON, "yaml": YAML, "properties": Properties}
	for _, name := range []string{"json", "hjson", "yaml", "properties"} {
		for _, n := range []int{1000, 20000} {
			data := manyValues(name, n)
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if vals, err := all[name](data); err != nil || len(vals) < n {
						b.Fatalf("%d values, %v", len(vals), err)
					}
				}
			})
		}
	}
}

// BenchmarkConfigDepth reads a file nested 50,000 levels deep (issue 25's
// Hjson case, 200 KB: 2.5 GB and 5 s before): the readers stop at
// MaxDepth.
func BenchmarkConfigDepth(b *testing.B) {
	for name, read := range readers {
		data := []byte(nested(name, 50000))
		if name == "yaml" {
			data = []byte(strings.Repeat("{a: ", 50000) + "x" + strings.Repeat("}", 50000) + "\n")
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := read(data); err == nil {
					b.Fatal("read a file nested 50,000 deep")
				}
			}
		})
	}
}
