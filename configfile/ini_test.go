package configfile

import "testing"

// TestINI checks the reader against what Python's configparser makes of
// the same text (pretalx.cfg): keys lower-cased, = or :, values stripped,
// comment lines skipped, a multi-line value left out, byte ranges exact.
func TestINI(t *testing.T) {
	src := "[database]\r\nbackend = postgresql\r\nHOST: db \r\n; host = old\r\nname = a\n  b\n[mail]\nhost=smtp\n"
	vals, err := INI([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range vals {
		got[v.Key] = v.Value
		if src[v.Start:v.End] != v.Value {
			t.Errorf("%s: range %q, value %q", v.Key, src[v.Start:v.End], v.Value)
		}
	}
	want := map[string]string{"database.backend": "postgresql", "database.host": "db", "mail.host": "smtp"}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	for _, bad := range []string{"host = db\n", "[a]\nx = 1\nx = 2\n", "[a]\n[a]\n", "[a]\nnovalue\n"} {
		if _, err := INI([]byte(bad)); err == nil {
			t.Errorf("INI(%q): no error; configparser refuses it", bad)
		}
	}
}
