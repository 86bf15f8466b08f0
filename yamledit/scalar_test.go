package yamledit

import (
	"testing"

	"gopkg.in/yaml.v3"
)

func TestScalarSpanAndRender(t *testing.T) {
	cases := []struct {
		doc, want string
	}{
		{"k: plain value # comment\n", "plain value"},
		{"k: \"dq \\\" v\"\n", `"dq \" v"`},
		{"k: 'it''s'\n", `'it''s'`},
		{"k: &a anchored\n", "anchored"},
		{"k: [a, b]\n", "a"},
	}
	for _, c := range cases {
		src, err := NewSource("t.yml", []byte("services: {}\n"+c.doc))
		if err != nil {
			t.Fatal(err)
		}
		_, v := OwnKey(src.Root, "k")
		inFlow := false
		if v.Kind == yaml.SequenceNode {
			v, inFlow = v.Content[0], true
		}
		sp, err := src.ScalarSpan(v, inFlow)
		if err != nil {
			t.Fatalf("%q: %v", c.doc, err)
		}
		if got := string(src.Data[sp.Start:sp.End]); got != c.want {
			t.Errorf("%q: span %q, want %q", c.doc, got, c.want)
		}
	}
}

func TestScalarSpanRefusesMultiline(t *testing.T) {
	src, err := NewSource("t.yml", []byte("k: first\n  second\nl: |\n  block\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"k", "l"} {
		_, v := OwnKey(src.Root, key)
		if _, err := src.ScalarSpan(v, false); err == nil {
			t.Errorf("%s: multi-line value accepted", key)
		}
	}
}

func TestRenderScalarKeepsStyle(t *testing.T) {
	cases := []struct {
		v     string
		style yaml.Style
		flow  bool
		want  string
	}{
		{"a$$b&c=d", 0, false, "a$$b&c=d"},
		{"has: colon", 0, false, `"has: colon"`},
		{"a,b", 0, true, `"a,b"`},
		{"x", yaml.DoubleQuotedStyle, false, `"x"`},
		{"it's", yaml.SingleQuotedStyle, false, `'it''s'`},
		{"true", 0, false, `"true"`},
		{"a\tb", 0, false, "a\tb"},
		{"U=postgres:///x?host=/var/run/postgresql", 0, true, `"U=postgres:///x?host=/var/run/postgresql"`},
		{"U=postgres:///x?host=/var/run/postgresql", 0, false, "U=postgres:///x?host=/var/run/postgresql"},
		{"a\tb", yaml.DoubleQuotedStyle, false, "\"a\tb\""},
		{"a\t#b", 0, false, "\"a\t#b\""},
		{"a\t", 0, false, "\"a\t\""},
		{"a\x01", yaml.DoubleQuotedStyle, false, `"a\x01"`},
	}
	for _, c := range cases {
		if got := RenderScalar(c.v, c.style, c.flow); got != c.want {
			t.Errorf("renderScalar(%q) = %q, want %q", c.v, got, c.want)
		}
	}
}
