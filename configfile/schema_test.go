package configfile

import "testing"

func TestIsSchema(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       bool
	}{
		// trial 11 D2: ory's stub schemas, by name and by $schema
		{"oryx/configx/stub/kratos/config.schema.json", `{"properties": {"dsn": {"type": "string", "examples": ["postgres://u:p@postgresd:5432/d"]}}}`, true},
		{"conf/settings.json", `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {}}`, true},
		{"conf/settings.json", "\xef\xbb\xbf" + `{"$schema": "https://json-schema.org/draft/2020-12/schema"}`, true},
		{"schemas/app.json", `{"properties": {"dsn": {"$ref": "#/$defs/url"}}}`, true},
		{"api/spec.json", `{"openapi": "3.1.0", "paths": {}}`, true},
		{"api/spec.yaml", "swagger: \"2.0\"\npaths: {}\n", true},
		{"openapi.json", `not even read`, true},
		{"config/application.yml", "$schema: https://json-schema.org/draft/2020-12/schema\nproperties:\n  url:\n    type: string\n", true},
		// configuration that names the schema it follows, or has a
		// "properties" key of its own
		{"appsettings.json", `{"$schema": "https://json.schemastore.org/appsettings.json", "ConnectionStrings": {"Db": "Host=db"}}`, false},
		{"conf/app.json", `{"properties": {"dsn": "postgres://u:p@db/app"}}`, false},
		{"conf/app.json", `{"properties": {"db": {"url": "postgres://u:p@db/app"}}}`, false},
		{"conf/app.json", `{"openapi": "enabled"}`, false},
		{"config/application.yml", "spring:\n  datasource:\n    url: jdbc:postgresql://db/app\n", false},
		{"conf/broken.json", `{"$schema": `, false},
		{"conf/app.toml", `"$schema" = "http://json-schema.org/draft-07/schema#"`, false},
	} {
		if got := IsSchema(c.name, []byte(c.data)); got != c.want {
			t.Errorf("IsSchema(%s, %q) = %v, want %v", c.name, c.data, got, c.want)
		}
	}
	// For reads no value from a schema; a configuration file keeps its.
	f, ok := For("conf/settings.json")
	if !ok {
		t.Fatal("For(conf/settings.json): not a format")
	}
	if vals, err := f.Values([]byte(`{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"dsn": {"type": "string", "default": "postgres://u:p@db/app"}}}`)); err != nil || len(vals) != 0 {
		t.Errorf("schema values = %v, %v; want none", vals, err)
	}
	if vals, err := f.Values([]byte(`{"database": {"url": "postgres://u:p@db/app"}}`)); err != nil || len(vals) != 1 || vals[0].Key != "database.url" {
		t.Errorf("configuration values = %v, %v; want database.url", vals, err)
	}
	if _, ok := For("docs/openapi.json"); ok {
		t.Error("For(openapi.json) is a format; want none")
	}
}
