package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"
)

// The rows of the bad input table that a txtar archive cannot hold (see
// testdata/script/cli/bad-input.txtar for the rest). Each input is refused with
// exit 2 and the message on stderr, stdout stays empty, and neither a plain
// run nor -w changes the file or adds one beside it.

// utf16Bytes encodes s as UTF-16, with the byte order mark when bom.
func utf16Bytes(s string, bigEndian, bom bool) []byte {
	var out []byte
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xFEFF}, units...)
	}
	for _, u := range units {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

const smallCompose = "services:\n  app:\n    image: a\n    environment:\n      DATABASE_URL: postgres://app@db/app\n  db:\n    image: postgres:16\n"

// aliasBomb nests 9 aliases per level, 10 levels: about 3.5e9 nodes once
// expanded, 100 lines as written.
func aliasBomb() []byte {
	var b strings.Builder
	b.WriteString("x-bomb:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for c := 'b'; c <= 'j'; c++ {
		refs := strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", ")
		fmt.Fprintf(&b, "  %c: &%c [%s]\n", c, c, refs)
		prev = string(c)
	}
	b.WriteString(smallCompose)
	return []byte(b.String())
}

// deep nests flow sequences depth levels deep under services.app.x-deep.
func deep(depth int) []byte {
	return []byte("services:\n  app:\n    image: a\n    x-deep: " + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n")
}

var badInputs = []struct {
	name string
	data []byte
	want string // regexp for stderr, after "uds-migrate: <file>"
}{
	{"utf16le-bom.yml", utf16Bytes(smallCompose, false, true),
		`:1:1: the file is UTF-16 text \(byte order mark\); uds-migrate edits UTF-8 compose files only: convert it with iconv -f UTF-16 -t UTF-8$`},
	{"utf16be-bom.yml", utf16Bytes(smallCompose, true, true), `:1:1: the file is UTF-16 text`},
	// Without a byte order mark, the first NUL gives it away.
	{"utf16le.yml", utf16Bytes(smallCompose, false, false), `:1:2: NUL byte: this is a binary file or UTF-16 text without a byte order mark`},
	{"utf16be.yml", utf16Bytes(smallCompose, true, false), `:1:1: NUL byte: `},
	{"utf32.yml", append([]byte("\xff\xfe\x00\x00"), utf16Bytes("s", false, false)...), `:1:1: the file is UTF-32 text`},
	{"invalid-utf8.yml", []byte("services:\n  app:\n    image: \"caf\xe9\"\n"),
		`:3:16: invalid UTF-8 \(byte 0xE9\): compose files are UTF-8 text$`},
	{"truncated-utf8.yml", []byte("services:\n  app:\n    image: x\xe2\x82"), `:3:13: invalid UTF-8 \(byte 0xE2\)`},
	{"binary.yml", append([]byte("\x7fELF\x02\x01\x01\x00"), bytes.Repeat([]byte{0, 1, 2, 0xfe}, 64)...), `:1:1: control character U\+007F: YAML does not allow it \(binary data\?\)$`},
	{"nul.yml", []byte("services:\n  app:\n    image: a\x00b\n"), `:3:13: NUL byte: `},
	{"control.yml", []byte("services:\n  app:\n    image: a\x1bb\n"), `:3:13: control character U\+001B`},
	{"bomb.yml", aliasBomb(), `:11:\d+: alias \*i expands to \d+ nodes, the document to \d+: excessive aliasing \(an alias bomb\?\); compose refuses it$`},
	// 101 levels counting from services: (compose-go's load time grows with
	// the square of the depth), and past yaml.v3's own limit of 10,000.
	{"deep.yml", deep(98), `:4:\d+: nested more than 100 levels deep: no compose file needs this`},
	{"deeper.yml", deep(5000), `:4:\d+: nested more than 100 levels deep`},
	{"deepest.yml", deep(100_000), `:4:10013: invalid YAML: exceeded max depth of 10000$`},
}

func TestBadInputTable(t *testing.T) {
	for _, c := range badInputs {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			want := regexp.MustCompile("^uds-migrate: " + regexp.QuoteMeta(path) + c.want)
			for _, args := range [][]string{{path}, {"-w", path}, {"--check", path}} {
				refused(t, args, want)
			}
			unchanged(t, dir, map[string][]byte{c.name: c.data})
		})
	}
}

// refused runs the CLI and checks the error contract: exit 2, nothing on
// stdout, one line on stderr matching want.
func refused(t *testing.T, args []string, want *regexp.Regexp) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"uds-migrate"}, args...), &out, &errb)
	if code != exitError {
		t.Errorf("uds-migrate %v: exit %d, want 2", shortArgs(args), code)
	}
	if out.Len() > 0 {
		t.Errorf("uds-migrate %v: stdout %q, want nothing", shortArgs(args), trim(out.String()))
	}
	if msg := strings.TrimSuffix(errb.String(), "\n"); !want.MatchString(msg) || strings.Contains(msg, "\n") {
		t.Errorf("uds-migrate %v: stderr\n%s\nwant one line matching %s", shortArgs(args), trim(msg), want)
	}
}

// unchanged checks that dir holds exactly files, byte for byte: nothing was
// written, and no temporary file was left beside them.
func unchanged(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		want, ok := files[e.Name()]
		if !ok {
			t.Errorf("%s: unexpected file %s", dir, e.Name())
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: content changed", e.Name())
		}
	}
	if len(ents) != len(files) {
		t.Errorf("%s: %d files, want %d", dir, len(ents), len(files))
	}
}

func shortArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = filepath.Base(a)
	}
	return out
}

func trim(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

// TestHugeFile: a 50 MB compose file (valid YAML, generated here) is refused
// by its size before it is read, so neither yaml.v3 nor compose-go sees it.
func TestHugeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "huge.yml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("services:\n")
	for i := 0; f != nil; i++ {
		fmt.Fprintf(f, "  svc%07d:\n    image: registry.example/app:1\n    environment:\n      DATABASE_URL: postgres://app@db/app\n", i)
		if fi, _ := f.Stat(); fi.Size() >= 50<<20 {
			break
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile("^uds-migrate: " + regexp.QuoteMeta(path) + ": larger than 10 MiB, more than a compose file may have: is this the right file\\?$")
	for _, args := range [][]string{{path}, {"-w", path}} {
		refused(t, args, want)
	}
	unchanged(t, dir, map[string][]byte{"huge.yml": data})
}

// TestAliasBombMemory: the bomb is refused from its written form; expanding
// it (3.5e9 nodes) would need hundreds of gigabytes. The bound is on bytes
// allocated by the whole run, a count that does not depend on timing.
func TestAliasBombMemory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bomb.yml")
	if err := os.WriteFile(path, aliasBomb(), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var out, errb bytes.Buffer
	code := run([]string{"uds-migrate", path}, &out, &errb)
	runtime.ReadMemStats(&after)
	if code != exitError || !strings.Contains(errb.String(), "excessive aliasing") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	const limit = 16 << 20
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit {
		t.Errorf("refusing the alias bomb allocated %d bytes, want at most %d", alloc, limit)
	}
}
