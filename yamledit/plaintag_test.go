package yamledit

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// TestReplaceScalarKeepsType: a plain boolean or number replaced by a value
// of the same type stays plain (read_only: true -> false, not "false"); a
// plain string replaced by a boolean-looking value is quoted, so its type
// stays a string.
func TestReplaceScalarKeepsType(t *testing.T) {
	for _, c := range []struct{ in, v, want string }{
		{"read_only: true\n", "false", "read_only: false\n"},
		{"m: {read_only: true, x: 1}\n", "false", "m: {read_only: false, x: 1}\n"},
		{"port: 5432\n", "5433", "port: 5433\n"},
		{"host: db\n", "false", "host: \"false\"\n"},
		{"port: 5432\n", "/var/run/postgresql", "port: /var/run/postgresql\n"},
	} {
		src, err := NewSource("t.yml", []byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		n := Deref(src.Root).Content[1]
		inFlow := false
		if n.Kind == yaml.MappingNode {
			n, inFlow = n.Content[1], true
		}
		e := NewEditor(src)
		if err := e.ReplaceScalar(n, c.v, inFlow); err != nil {
			t.Fatal(err)
		}
		got, err := e.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%q with %q: got %q, want %q", c.in, c.v, got, c.want)
		}
	}
	if PlainTag("false", false) != "!!bool" || PlainTag("db", false) != "!!str" || PlainTag("5432", true) != "!!int" || PlainTag("a # b", false) != "" {
		t.Error("PlainTag")
	}
}
