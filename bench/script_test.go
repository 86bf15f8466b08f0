package bench

import (
	"reflect"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/templates"
)

func TestParseBundledScripts(t *testing.T) {
	want := map[string]int{"lookup-small": 3, "lookup-large": 3, "heavy": 1}
	for name, queries := range want {
		text, err := templates.PgbenchScript(name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseScript(name, text)
		if err != nil {
			t.Fatal(err)
		}
		if s.Queries() != queries {
			t.Errorf("%s: %d queries per pass, want %d", name, s.Queries(), queries)
		}
		if err := s.Check(map[string]int64{"rows": 1000}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestBindParamsAndLiterals(t *testing.T) {
	s, err := ParseScript("t.sql", `
-- a comment line
\set id 41 + 1
\set n (:id - 2) * 3 % 7
SELECT :id::int8, :n, ':id', '12:30', :missing
  FROM t WHERE id = :id;
`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.NewRunner(nil, 1).Next()
	if err != nil {
		t.Fatal(err)
	}
	// (42-2)*3 % 7 = 120 % 7 = 1. Quotes are not parsed (pgbench does not
	// either), so ':id' inside a literal is replaced too.
	wantSQL := "SELECT $1::int8, $2, '$3', '12:30', :missing\n  FROM t WHERE id = $4"
	wantLit := "SELECT 42::int8, 1, '42', '12:30', :missing\n  FROM t WHERE id = 42"
	if b.SQL != wantSQL || b.Literal != wantLit {
		t.Errorf("bound\n SQL %q\n lit %q\nwant\n SQL %q\n lit %q", b.SQL, b.Literal, wantSQL, wantLit)
	}
	if !reflect.DeepEqual(b.Args, []any{int64(42), int64(1), int64(42), int64(42)}) {
		t.Errorf("args %v", b.Args)
	}
}

func TestRandomStaysInRangeAndCoversIt(t *testing.T) {
	s, err := ParseScript("r.sql", "\\set x random(3, :hi - 1)\nSELECT :x;\n")
	if err != nil {
		t.Fatal(err)
	}
	r := s.NewRunner(map[string]int64{"hi": 7}, 99)
	seen := map[int64]bool{}
	for i := 0; i < 500; i++ {
		b, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		v := b.Args[0].(int64)
		if v < 3 || v > 6 {
			t.Fatalf("random(3, 6) gave %d", v)
		}
		seen[v] = true
	}
	if len(seen) != 4 {
		t.Errorf("500 draws of random(3, 6) hit only %v", seen)
	}
}

func TestRunnerWrapsAroundScript(t *testing.T) {
	s, _ := ParseScript("w.sql", "SELECT 1;\nSELECT\n  2;\n")
	r := s.NewRunner(nil, 1)
	var got []string
	for i := 0; i < 4; i++ {
		b, _ := r.Next()
		got = append(got, strings.Join(strings.Fields(b.SQL), " "))
	}
	if want := []string{"SELECT 1", "SELECT 2", "SELECT 1", "SELECT 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestScriptErrorsNameTheLine(t *testing.T) {
	cases := map[string]string{
		"SELECT 1;\n\\sleep 10 ms\n":     "e.sql:2: unsupported meta-command \\sleep",
		"\\set x random(1)\nSELECT 1;\n": "e.sql:1: \\set x: random needs two arguments",
		"\\set x 1 +\nSELECT 1;\n":       "e.sql:1: \\set x: expression ends early",
		"\\set x 1\n":                    "e.sql: no SQL command",
		"SELECT 1\n\\set x 1\nSELECT 2;": "e.sql:2: meta-command inside an unterminated SQL command",
	}
	for text, want := range cases {
		_, err := ParseScript("e.sql", text)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ParseScript(%q) error %v, want prefix %q", text, err, want)
		}
	}
	s, _ := ParseScript("e.sql", "\\set x :y + 1\nSELECT :x;\n")
	if err := s.Check(nil); err == nil || err.Error() != "e.sql:1: variable :y used before it is set" {
		t.Errorf("Check: %v", err)
	}
	if err := s.Check(map[string]int64{"y": 1}); err != nil {
		t.Errorf("Check with define: %v", err)
	}
	d, _ := ParseScript("d.sql", "\\set x 1 / 0\nSELECT :x;\n")
	if _, err := d.NewRunner(nil, 1).Next(); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("1/0: %v", err)
	}
}

// Scripts only pgbench runs are kept for it, their SQL commands counted;
// the in-process clients learn why they cannot run them.
func TestParsePgbenchScriptPassesPgbenchOnlySyntax(t *testing.T) {
	text := `-- pgbench-only syntax
\set id random_zipfian(1, :rows, 1.1)
SELECT id AS got FROM t WHERE id = :id \gset
\sleep 1 ms
SELECT :got
  + 1;
SELECT 2 \gset p_
\if :got > 0
SELECT 3;
\endif
`
	s, err := ParsePgbenchScript("z.sql", text, map[string]int64{"rows": 10})
	if err != nil {
		t.Fatal(err)
	}
	if s.Text != text || s.Queries() != 4 {
		t.Errorf("text kept %v, %d queries per pass, want 4", s.Text == text, s.Queries())
	}
	if err := s.InProcess(); err == nil || !strings.HasPrefix(err.Error(), "z.sql:2: \\set id: ") {
		t.Errorf("InProcess() = %v, want the first line the interpreter rejects", err)
	}
	b, err := ParsePgbenchScript("b.sql", "\\set a random(1, 10)\nSELECT :a;\n", nil)
	if err != nil || b.InProcess() != nil || b.Queries() != 1 {
		t.Errorf("plain script: %v %v %d", err, b.InProcess(), b.Queries())
	}
	u, err := ParsePgbenchScript("u.sql", "SELECT :undefined + 1;\n\\set x :y\nSELECT :x;\n", nil)
	if err != nil || u.InProcess() == nil || !strings.Contains(u.InProcess().Error(), "variable :y used before it is set") {
		t.Errorf("undefined variable: %v %v", err, u)
	}
	if _, err := ParsePgbenchScript("e.sql", "\\sleep 1\n", nil); err == nil {
		t.Error("a script without SQL accepted")
	}
}
