package schematest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCompileAndValidate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	schema := `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["a"]}`
	if err := os.WriteFile(path, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Compile(t, path)
	if err := Validate(s, []byte(`{"a": 1}`)); err != nil {
		t.Errorf("valid document rejected: %v", err)
	}
	if Validate(s, []byte(`{"b": 1}`)) == nil {
		t.Error("document without a validated")
	}
	if Validate(s, []byte(`{`)) == nil {
		t.Error("broken JSON validated")
	}
}
