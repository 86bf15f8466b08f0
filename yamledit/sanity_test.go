package yamledit

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/finding"
	"gopkg.in/yaml.v3"
)

// yamlAccepts reports whether yaml.v3 decodes doc fully (into a generic
// value, as compose does, so aliases are expanded and keys compared).
func yamlAccepts(doc []byte) bool {
	var v any
	return yaml.Unmarshal(doc, &v) == nil
}

// TestCheckBytesAgreesWithYAML: checkBytes refuses exactly the characters
// and byte sequences yaml.v3 refuses, so it only adds a position, never a
// refusal of its own.
func TestCheckBytesAgreesWithYAML(t *testing.T) {
	var inserts []string
	for r := rune(0); r <= 0xA0; r++ {
		if r != '"' && r != '\\' { // syntax inside the quotes
			inserts = append(inserts, string(r))
		}
	}
	for _, r := range []rune{0xD7FF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x10FFFF} {
		inserts = append(inserts, string(r))
	}
	// Overlong, surrogate, out of range, truncated, stray continuation.
	inserts = append(inserts, "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xe2\x82", "\x80", "\xff")
	for _, ins := range inserts {
		doc := []byte("k: \"a" + ins + "b\"\n")
		err := checkBytes("t.yml", doc)
		if ins == "\r" || ins == "\u0085" {
			continue // line breaks, refused on purpose: TestCheckBytesLineBreaks
		}
		if yaml := yamlAccepts(doc); yaml != (err == nil) {
			t.Errorf("%q: yaml.v3 accepts: %v, checkBytes: %v", ins, yaml, err)
		}
		var pe *finding.PosError
		if err != nil && (!errors.As(err, &pe) || pe.Line != 1 || pe.Col != 6) {
			t.Errorf("%q: %v, want a PosError at 1:6", ins, err)
		}
	}
}

// TestCheckBytesLineBreaks: the line breaks yaml.v3 reads besides LF and
// CRLF are refused where they stand.
func TestCheckBytesLineBreaks(t *testing.T) {
	for _, br := range []string{"\r", "\u0085", "\u2028", "\u2029"} {
		doc := "services:\n  app:" + br + "    image: x\n"
		var pe *finding.PosError
		if err := checkBytes("t.yml", []byte(doc)); !errors.As(err, &pe) || pe.Line != 2 || pe.Col != 7 {
			t.Errorf("%q: %v, want a PosError at 2:7", br, err)
		}
		var n yaml.Node
		if err := yaml.Unmarshal([]byte("a: x"+br+"b: y\n"), &n); err != nil || len(n.Content[0].Content) != 4 {
			t.Errorf("%q is no line break to yaml.v3: then it need not be refused", br)
		}
	}
	if err := checkBytes("t.yml", []byte("a: 1\r\nb: 2\r\n")); err != nil {
		t.Errorf("CRLF refused: %v", err)
	}
}

func TestCheckBytesPositions(t *testing.T) {
	cases := []struct {
		doc  string
		want string
	}{
		{"a: 1\nb: \"x\x01\"\n", "t.yml:2:6: control character U+0001"},
		{"\xef\xbb\xbfa: \x00\n", "t.yml:1:4: NUL byte"},             // the BOM is not a column
		{"a: é\nb: é\xff\n", "t.yml:2:5: invalid UTF-8 (byte 0xFF)"}, // columns count characters
		{"\xfe\xff\x00a", "t.yml:1:1: the file is UTF-16 text"},
		{"\x00\x00\xfe\xff", "t.yml:1:1: the file is UTF-32 text"},
	}
	for _, c := range cases {
		err := checkBytes("t.yml", []byte(c.doc))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s...", c.doc, err, c.want)
		}
	}
	if err := checkBytes("t.yml", []byte("\xef\xbb\xbfa: \"\ttab\"\r\n")); err != nil {
		t.Errorf("BOM, tab and CRLF refused: %v", err)
	}
}

func TestNewSourceSizeLimit(t *testing.T) {
	line := "# padding to make the file large enough to cross the size limit\n"
	big := []byte("services: {}\n" + strings.Repeat(line, MaxFileSize/len(line)+1))
	if _, err := NewSource("big.yml", big); err == nil || !strings.Contains(err.Error(), "larger than 10 MiB") {
		t.Errorf("%d bytes: %v", len(big), err)
	}
	if _, err := NewSource("ok.yml", big[:MaxFileSize-1]); err != nil {
		t.Errorf("%d bytes refused: %v", MaxFileSize-1, err)
	}
}

// nest writes a document whose deepest sequence sits depth levels below
// the document node (document 1, root mapping 2, services' value 3, ...).
func nest(depth int) []byte {
	n := depth - 4 // document, root, services value, app value
	return []byte("services:\n  app:\n    x: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n")
}

func TestDepthLimit(t *testing.T) {
	if _, err := NewSource("t.yml", nest(maxDepth)); err != nil {
		t.Errorf("depth %d refused: %v", maxDepth, err)
	}
	_, err := NewSource("t.yml", nest(maxDepth+1))
	var pe *finding.PosError
	if !errors.As(err, &pe) || pe.Line != 3 || !strings.Contains(pe.Msg, "nested more than 100 levels") {
		t.Errorf("depth %d: %v", maxDepth+1, err)
	}
}

func TestNodeLimit(t *testing.T) {
	doc := func(items int) []byte {
		// root mapping 1 (compose-go's count starts there) + the x-big
		// sequence 1 + items + services value 1 + app value 1 + image 1.
		return []byte("x-big:\n" + strings.Repeat("  - v\n", items) + "services:\n  app:\n    image: x\n")
	}
	fits := maxNodes - 5
	if _, err := NewSource("t.yml", doc(fits)); err != nil {
		t.Errorf("%d nodes refused: %v", maxNodes, err)
	}
	_, err := NewSource("t.yml", doc(fits+1))
	if err == nil || !strings.Contains(err.Error(), "more than 100000 YAML nodes") {
		t.Errorf("%d nodes: %v", maxNodes+1, err)
	}
}

// TestDuplicateKeysAgreeWithYAML: the keys refused are those yaml.v3 (and
// compose-go, which compares key text the same way) refuses.
func TestDuplicateKeysAgreeWithYAML(t *testing.T) {
	cases := []struct {
		doc  string
		line int // of the duplicate; 0: accepted
	}{
		{"a: 1\nb: 2\n", 0},
		{"a: 1\nb: 2\na: 3\n", 3},
		{"a: 1\n'a': 2\n", 2},
		{"\"1\": x\n1: y\n", 2},
		{"m:\n  x: &x {k: 1}\n  y:\n    <<: *x\n    <<: *x\n", 5},
		{"m:\n  x: &x {k: 1}\n  y:\n    <<: *x\n    k: 2\n", 0}, // a merged key may be overridden
		{"s:\n  - a: 1\n  - a: 1\n", 0},                         // equal keys in different mappings
	}
	for _, c := range cases {
		_, err := NewSource("t.yml", []byte(c.doc))
		var pe *finding.PosError
		refused := errors.As(err, &pe) && strings.Contains(pe.Msg, "duplicate key")
		if refused != (c.line > 0) || (refused && pe.Line != c.line) {
			t.Errorf("%q: %v, want duplicate at line %d", c.doc, err, c.line)
		}
		if yamlAccepts([]byte(c.doc)) == refused {
			t.Errorf("%q: yaml.v3 accepts: %v, NewSource: %v", c.doc, !refused, err)
		}
	}
}

// aliasDoc builds levels of anchors, each a sequence of width aliases to
// the one before: width^levels nodes once expanded.
func aliasDoc(width, levels int) []byte {
	var b bytes.Buffer
	b.WriteString("x-a:\n  l0: &l0 [v, v, v, v, v, v, v, v, v, v]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), width), ", "))
	}
	b.WriteString("services:\n  app:\n    image: x\n")
	return b.Bytes()
}

// TestAliasRuleNeverStricterThanYAML: every document the excessive-aliasing
// check refuses, yaml.v3 refuses too; the bomb sizes in between are refused
// by yaml.v3 alone (and so by compose, without a position).
func TestAliasRuleNeverStricterThanYAML(t *testing.T) {
	refusedSome := false
	for width := 2; width <= 9; width++ {
		for levels := 1; levels <= 9; levels++ {
			doc := aliasDoc(width, levels)
			_, err := NewSource("t.yml", doc)
			if err != nil && !strings.Contains(err.Error(), "excessive aliasing") {
				t.Fatalf("width %d levels %d: %v", width, levels, err)
			}
			if err == nil {
				continue
			}
			refusedSome = true
			if yamlAccepts(doc) {
				t.Errorf("width %d levels %d: refused (%v), but yaml.v3 accepts it", width, levels, err)
			}
		}
	}
	if !refusedSome {
		t.Error("no alias bomb refused")
	}
	if _, err := NewSource("t.yml", aliasDoc(9, 9)); err == nil || !strings.HasPrefix(err.Error(), "t.yml:11:") {
		t.Errorf("bomb: %v, want the position of the largest alias on line 11", err)
	}
}

// TestAliasesUsedAsComposeDoes: anchors and merge keys the way compose files
// use them are far below every limit.
func TestAliasesUsedAsComposeDoes(t *testing.T) {
	var b strings.Builder
	b.WriteString("x-common: &common\n  restart: always\n  environment:\n    A: b\n    C: d\nservices:\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "  s%d:\n    <<: *common\n    image: x\n", i)
	}
	if _, err := NewSource("t.yml", []byte(b.String())); err != nil {
		t.Error(err)
	}
}

func TestSecondDocumentRefused(t *testing.T) {
	for _, doc := range []string{"services: {}\n---\nx: 1\n", "services: {}\n...\n---\nx: 1\n"} {
		_, err := NewSource("t.yml", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), "a second YAML document") {
			t.Errorf("%q: %v", doc, err)
		}
	}
	for _, doc := range []string{"---\nservices: {}\n", "services: {}\n...\n", "services: {}\n---\n", "services: {}\n---\n# end\n---\n"} {
		if _, err := NewSource("t.yml", []byte(doc)); err != nil && strings.Contains(err.Error(), "second") {
			t.Errorf("%q: %v", doc, err)
		}
	}
}

// TestTopLevelColumn: top-level keys anywhere but column 1 (behind a tag,
// or an indented document) are refused; an anchor on the first key and a
// byte order mark are not in the way.
func TestTopLevelColumn(t *testing.T) {
	for doc, refused := range map[string]bool{
		" ! services:\n  a:\n    image: x\n":          true,
		"!!map\nservices:\n  a:\n    image: x\n":      true,
		"  services:\n    a:\n      image: x\n":       true,
		"&r services:\n  a:\n    image: x\n":          false,
		"\xef\xbb\xbfservices:\n  a:\n    image: x\n": false,
	} {
		_, err := NewSource("t.yml", []byte(doc))
		if got := err != nil && strings.Contains(err.Error(), "column 1"); got != refused {
			t.Errorf("%q: %v, want refused: %v", doc, err, refused)
		}
	}
}
