package configfile

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"gopkg.in/yaml.v3"
)

// A schema document describes configuration, it is not configuration: a
// JSON Schema's "examples" and "default" strings (ory's config.schema.json:
// "examples": ["postgres://user:password@postgresd:5432/database"]) or an
// OpenAPI document's examples are documentation, which no program reads as
// the place to connect, even where the file reaches a container (trial 11
// D2, ory/hydra oryx/configx/stub/*/config.schema.json).

// schemaName reports whether a file's name (slash-separated) marks it as a
// schema or API description by convention: *.schema.json and
// *.schema.yaml (the JSON Schema Store's naming), schema.json, and
// openapi.* / swagger.* documents.
func schemaName(name string) bool {
	base := strings.ToLower(path.Base(name))
	ext := path.Ext(base)
	if ext != ".json" && ext != ".yaml" && ext != ".yml" {
		return false
	}
	stem := strings.TrimSuffix(base, ext)
	return stem == "schema" || strings.HasSuffix(stem, ".schema") || stem == "openapi" || stem == "swagger" ||
		strings.HasPrefix(stem, "openapi.") || strings.HasPrefix(stem, "swagger.")
}

// jsonSchemaTypes are JSON Schema's type names (draft 4 to 2020-12,
// "type" keyword).
var jsonSchemaTypes = map[string]bool{"string": true, "object": true, "array": true, "number": true, "integer": true, "boolean": true, "null": true}

// IsSchema reports whether a JSON or YAML file is a schema document rather
// than configuration, by its name (schemaName) or its content: a JSON
// Schema (a "$schema" naming json-schema.org's meta-schema, or a top-level
// "properties" whose members are schemas with a "type" or "$ref"), or an
// OpenAPI / Swagger document (a top-level "openapi" or "swagger" version
// string). A configuration file that only names the schema it follows
// ("$schema": "https://json.schemastore.org/appsettings.json") is
// configuration, and IsSchema is false for it.
func IsSchema(name string, data []byte) bool {
	if schemaName(name) {
		return true
	}
	var top map[string]any
	switch strings.ToLower(path.Ext(name)) {
	case ".json":
		if json.Unmarshal(bomless(data), &top) != nil {
			return false
		}
	case ".yaml", ".yml":
		// The first document decides (a stream of schemas is rare; one
		// of configuration that starts with a schema rarer still).
		if yaml.NewDecoder(bytes.NewReader(bomless(data))).Decode(&top) != nil {
			return false
		}
	default:
		return false
	}
	return schemaContent(top)
}

// schemaContent is IsSchema's test of a decoded top-level object.
func schemaContent(top map[string]any) bool {
	if s, ok := top["$schema"].(string); ok && strings.Contains(strings.ToLower(s), "json-schema.org") {
		return true
	}
	for _, k := range []string{"openapi", "swagger"} {
		if s, ok := top[k].(string); ok && s != "" && s[0] >= '0' && s[0] <= '9' {
			return true
		}
	}
	props, ok := top["properties"].(map[string]any)
	if !ok || len(props) == 0 {
		return false
	}
	typed := false
	for _, p := range props {
		m, ok := p.(map[string]any)
		if !ok {
			return false // a schema's properties are schemas, each an object
		}
		if t, ok := m["type"].(string); ok && jsonSchemaTypes[t] {
			typed = true
		}
		if _, ok := m["$ref"].(string); ok {
			typed = true
		}
	}
	return typed
}

// bomless drops a UTF-8 byte order mark.
func bomless(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }

// skipSchema reads no value from a schema document (IsSchema) of a
// format's files.
func skipSchema(name string, values func([]byte) ([]Value, error)) func([]byte) ([]Value, error) {
	return func(data []byte) ([]Value, error) {
		if IsSchema(name, data) {
			return nil, nil
		}
		return values(data)
	}
}
