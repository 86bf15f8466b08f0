package configfile

import (
	"testing"
)

func check(t *testing.T, name string, vals []Value, err error, data, key, want string, line int) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, v := range vals {
		if v.Key == key {
			if v.Value != want || v.Line != line {
				t.Errorf("%s %s: got %q at line %d; want %q at %d", name, key, v.Value, v.Line, want, line)
			}
			out := data[:v.Start] + v.Render("NEW") + data[v.End:]
			_ = out
			return
		}
	}
	t.Errorf("%s: key %s not found in %+v", name, key, vals)
}

func TestProperties(t *testing.T) {
	data := "# c\n! c2\na.url = jdbc:x \\\n    ://h\\:1\nb.url:v\nc.url v w\n  d\\ e=f\\\\\nempty\n"
	vals, err := Properties([]byte(data))
	check(t, "props", vals, err, data, "a.url", "jdbc:x ://h:1", 3)
	check(t, "props", vals, err, data, "b.url", "v", 5)
	check(t, "props", vals, err, data, "c.url", "v w", 6)
	check(t, "props", vals, err, data, "d e", `f\`, 7)
	check(t, "props", vals, err, data, "empty", "", 8)
	for _, v := range vals {
		if v.Key == "a.url" {
			got := data[:v.Start] + v.Render("jdbc:y$FactoryArg") + data[v.End:]
			want := "# c\n! c2\na.url = jdbc:y$FactoryArg\nb.url:v\nc.url v w\n  d\\ e=f\\\\\nempty\n"
			if got != want {
				t.Errorf("splice:\n%s\nwant\n%s", got, want)
			}
		}
	}
}

func TestYAMLAndJSON(t *testing.T) {
	y := "# c\nspring:\n  datasource:\n    url: jdbc:postgresql://db/x   # primary\n    password: \"p\"\n---\nother: {a: b}\n"
	vals, err := YAML([]byte(y))
	check(t, "yaml", vals, err, y, "spring.datasource.url", "jdbc:postgresql://db/x", 4)
	for _, v := range vals {
		if v.Key == "spring.datasource.url" && y[:v.Start]+v.Render("a: b")+y[v.End:] != "# c\nspring:\n  datasource:\n    url: \"a: b\"   # primary\n    password: \"p\"\n---\nother: {a: b}\n" {
			t.Errorf("yaml render: %q", v.Render("a: b"))
		}
	}
	j := "{\n  \"db\": {\"url\": \"postgres://u@db/x\", \"n\": [1, \"a\\\"b\"]},\n  \"host\": \"db\"\n}\n"
	vals, err = JSON([]byte(j))
	check(t, "json", vals, err, j, "db.url", "postgres://u@db/x", 2)
	check(t, "json", vals, err, j, "db.n.1", `a"b`, 2)
	check(t, "json", vals, err, j, "host", "db", 3)
	for _, v := range vals {
		if v.Key == "host" && j[v.Start:v.End] != `"db"` {
			t.Errorf("json range %q", j[v.Start:v.End])
		}
	}
}

func TestRails(t *testing.T) {
	d := "default: &default\n  adapter: postgresql\n  pool: <%= ENV.fetch(\"MAX\") { 5 } %>\n\nproduction:\n  <<: *default\n  host: <%= ENV.fetch(\"DB_HOST\") { \"db\" } %>\n"
	v, ok, err := RailsSetting([]byte(d), "production", "host")
	if err != nil || !ok || !v.ERB || v.Line != 7 || v.Text != `<%= ENV.fetch("DB_HOST") { "db" } %>` {
		t.Fatalf("host: %+v %v %v", v, ok, err)
	}
	key, def, s, e, ok := ERBDefault(v.Text)
	if !ok || key != "DB_HOST" || def != "db" || v.Text[s:e] != "db" {
		t.Errorf("default: %q %q %v", key, def, ok)
	}
	a, ok, _ := RailsSetting([]byte(d), "production", "adapter")
	if !ok || !a.Merged || a.Value != "postgresql" {
		t.Errorf("adapter: %+v", a)
	}
	cf := "production:\n<% if ENV['REPLICA'] %>\n  host: <%= ENV['DB_HOST'] %>\n<% end %>\n  adapter: postgresql\n"
	if v, ok, err := RailsSetting([]byte(cf), "production", "host"); err != nil || !ok || v.Line != 3 || !v.ERB {
		t.Errorf("control flow: %+v %v %v", v, ok, err)
	}
	// A tag inside a quoted YAML scalar: ERB runs first, so its output is
	// the scalar's text, and the default is edited inside the tag.
	for _, q := range []string{`"`, `'`} {
		dq := "production:\n  adapter: postgresql\n  host: " + q + "<%= ENV.fetch('DB_HOST') { 'db' } %>" + q + "\n"
		v, ok, err := RailsSetting([]byte(dq), "production", "host")
		if err != nil || !ok || !v.ERB || v.Col != 10 || v.Text != `<%= ENV.fetch('DB_HOST') { 'db' } %>` || dq[v.Start:v.End] != v.Text {
			t.Errorf("quoted %s: %+v %v %v", q, v, ok, err)
		}
		h, key, ok, err := RailsHost([]byte(dq), "production")
		if err != nil || !ok || key != "DB_HOST" || h.Value != "db" || dq[h.Start:h.End] != "db" {
			t.Errorf("quoted %s host: %+v %q %v %v", q, h, key, ok, err)
		}
	}
	// Text around the tag in the scalar: not one tag's output.
	if v, ok, _ := RailsSetting([]byte("production:\n  host: \"x-<%= ENV['H'] %>\"\n"), "production", "host"); ok && v.ERB {
		t.Errorf("tag with text around it read as one tag: %+v", v)
	}
	for _, tag := range []string{`<%= ENV.fetch('H', 'x') %>`, `<%= ENV['H'] || "x" %>`} {
		if k, d, s, e, ok := ERBDefault(tag); !ok || k != "H" || d != "x" || tag[s:e] != "x" {
			t.Errorf("%s: %q %q", tag, k, d)
		}
	}
}

func TestHJSON(t *testing.T) {
	h := "# lemmy-style\n{\n  database: {\n    // the connection\n    connection: postgres://lemmy:pw@postgres:5432/lemmy   \n    pool_size: 5\n  }\n  hostname: \"example.org\", tags: ['a', \"b\"]\n  /* block */ text: '''\n  multi\n  '''\n}\n"
	vals, err := HJSON([]byte(h))
	check(t, "hjson", vals, err, h, "database.connection", "postgres://lemmy:pw@postgres:5432/lemmy", 5)
	check(t, "hjson", vals, err, h, "hostname", "example.org", 8)
	check(t, "hjson", vals, err, h, "tags.0", "a", 8)
	for _, v := range vals {
		if v.Key == "database.connection" && h[v.Start:v.End] != "postgres://lemmy:pw@postgres:5432/lemmy" {
			t.Errorf("range %q", h[v.Start:v.End])
		}
		if v.Key == "hostname" && h[v.Start:v.End] != `"example.org"` {
			t.Errorf("range %q", h[v.Start:v.End])
		}
	}
	if _, err := HJSON([]byte("{a: 'x")); err == nil {
		t.Error("unterminated string accepted")
	}
}
