package interp

import "testing"

func TestMaskRoundTrip(t *testing.T) {
	cases := []struct {
		raw, masked string
		refs        int
	}{
		{"jdbc:postgresql://postgres:5432/appdb", "jdbc:postgresql://postgres:5432/appdb", 0},
		{"jdbc:postgresql://${DB_HOST:-db}:${DB_PORT:-5432}/${DB_NAME:-app}?x=1", "jdbc:postgresql://\ue000:\ue001/\ue002?x=1", 3},
		{"a$$FactoryArg", "a$FactoryArg", 0},
		{"a$FactoryArg&b", "a\ue000&b", 1},
		{"${A:-${B:-c}}/d", "\ue000/d", 1},
		{"cost $5", "cost \ue0005", 1},
		{"trailing $", "trailing \ue000", 1},
	}
	for _, c := range cases {
		m, err := Mask(c.raw)
		if err != nil {
			t.Fatalf("Mask(%q): %v", c.raw, err)
		}
		if m.Value != c.masked || len(m.Refs) != c.refs {
			t.Errorf("Mask(%q) = %q with %d refs, want %q with %d", c.raw, m.Value, len(m.Refs), c.masked, c.refs)
		}
		if back := m.Unmask(m.Value); back != c.raw {
			t.Errorf("Unmask(Mask(%q)) = %q", c.raw, back)
		}
	}
}

func TestUnmaskEscapesDollar(t *testing.T) {
	m, _ := Mask("x")
	if got := m.Unmask("Factory$FactoryArg"); got != "Factory$$FactoryArg" {
		t.Fatalf("got %q", got)
	}
}

func TestMaskUnterminated(t *testing.T) {
	if _, err := Mask("jdbc:${DB_HOST"); err == nil {
		t.Fatal("want an error for an unterminated ${")
	}
}
