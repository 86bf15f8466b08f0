package configfile

import "testing"

func TestWholeFile(t *testing.T) {
	for _, c := range []struct {
		in, want string
		line     int
	}{
		{"postgres://u:p@db/app\n", "postgres://u:p@db/app", 1},
		{"\n  jdbc:postgresql://db/app  \r\n", "jdbc:postgresql://db/app", 2},
		{"", "", 0},
		{"a\nb\n", "", 0}, // two values: not a one-value file
	} {
		vs, err := WholeFile([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" {
			if len(vs) != 0 {
				t.Errorf("WholeFile(%q) = %+v; want none", c.in, vs)
			}
			continue
		}
		if len(vs) != 1 || vs[0].Value != c.want || vs[0].Line != c.line || c.in[vs[0].Start:vs[0].End] != c.want || vs[0].Render("x") != "x" {
			t.Errorf("WholeFile(%q) = %+v; want %q at line %d", c.in, vs, c.want, c.line)
		}
	}
}
