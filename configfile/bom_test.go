package configfile

import (
	"strings"
	"testing"
)

// TestBOM: every format reads a file that starts with a UTF-8 BOM (Visual
// Studio writes one in appsettings.json), at the line and column an editor
// shows, and an edit spliced at the value's byte range keeps the BOM
// (issue 25, Medium 7).
func TestBOM(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	cases := []struct{ name, data, key, value, edited string }{
		{"appsettings.json", `{"ConnectionStrings": {"Default": "Host=db"}}`, "ConnectionStrings.Default", "Host=db", `{"ConnectionStrings": {"Default": "NEW"}}`},
		{"application.properties", "spring.datasource.url=jdbc:postgresql://db/x\n", "spring.datasource.url", "jdbc:postgresql://db/x", "spring.datasource.url=NEW\n"},
		{"application.yml", "spring.datasource.url: jdbc:postgresql://db/x\n", "spring.datasource.url", "jdbc:postgresql://db/x", "spring.datasource.url: NEW\n"},
		{"config.hjson", "{url: postgres://db/x\n}\n", "url", "postgres://db/x", "{url: NEW\n}\n"},
		{"secret", "postgres://db/x\n", "", "postgres://db/x", "NEW\n"},
	}
	for _, c := range cases {
		values := WholeFile
		if f, ok := For(c.name); ok {
			values = f.Values
		}
		data := bom + c.data
		vals, err := values([]byte(data))
		if err != nil || len(vals) == 0 {
			t.Errorf("%s with a BOM: %v, %v", c.name, vals, err)
			continue
		}
		v := vals[0]
		col := strings.Index(c.data, c.value) + 1
		if strings.Contains(c.data, `"`+c.value+`"`) {
			col-- // a JSON value's range starts at its quote
		}
		if v.Key != c.key || v.Value != c.value || v.Line != 1 || v.Col != col {
			t.Errorf("%s: %q=%q at 1:%d, want %q=%q at 1:%d", c.name, v.Key, v.Value, v.Col, c.key, c.value, col)
		}
		if got := data[:v.Start] + v.Render("NEW") + data[v.End:]; got != bom+c.edited {
			t.Errorf("%s: edited %q, want %q", c.name, got, bom+c.edited)
		}
	}
	rv, ok, err := RailsSetting([]byte(bom+"production:\n  host: db\n"), "production", "host")
	if err != nil || !ok || rv.Text != "db" || rv.Line != 2 || rv.Col != 9 {
		t.Errorf("database.yml with a BOM: %+v %v %v", rv, ok, err)
	}
}
