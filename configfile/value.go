package configfile

import (
	"path"
	"strings"
)

// Value is one setting of a configuration file: its key (a property name
// or a dotted path), where its value is written and the value itself.
type Value struct {
	Key        string
	Line, Col  int
	Start, End int    // byte range of the value text as written (quotes included)
	Value      string // the value as the application reads it
	render     func(string) string
}

// Render writes v as the file's syntax needs it in place of the value.
func (v Value) Render(s string) string { return v.render(s) }

// Format reads the settings of one configuration file format.
type Format struct {
	Name   string
	Values func(data []byte) ([]Value, error)
}

// For returns the format of a file by its name, or false when the file is
// not one this package edits: Java/Spring .properties, Spring's
// application*.yml / bootstrap*.yml, .json and .hjson configs; a JSON
// Schema or OpenAPI document (IsSchema) holds no setting. Rails'
// config/database.yml has its own reader (RailsSetting). Each reads a file
// that starts with a UTF-8 BOM, and its byte ranges keep it (bomAware).
func For(name string) (Format, bool) {
	base := path.Base(name)
	switch {
	case base == "package-lock.json" || base == "npm-shrinkwrap.json":
		// npm's lock files: package metadata, often over the 512 KB the
		// tool reads, never a setting.
		return Format{}, false
	case schemaName(name):
		// A schema or API description (config.schema.json, openapi.json):
		// documentation of settings, not settings (IsSchema).
		return Format{}, false
	case strings.HasSuffix(base, ".properties"):
		return Format{"properties", bomAware(Properties)}, true
	case (strings.HasPrefix(base, "application") || strings.HasPrefix(base, "bootstrap")) && (strings.HasSuffix(base, ".yml") || strings.HasSuffix(base, ".yaml")):
		return Format{"yaml", skipSchema(name, bomAware(YAML))}, true
	case strings.HasSuffix(base, ".json"):
		return Format{"json", skipSchema(name, bomAware(JSON))}, true
	case strings.HasSuffix(base, ".hjson"):
		return Format{"hjson", bomAware(HJSON)}, true
	}
	return Format{}, false
}
