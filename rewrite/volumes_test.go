package rewrite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocumentEndMarker: a new top-level section goes before a document end
// marker ("..."), not after it where YAML allows no content (the output
// failed its own verification: internal error).
func TestDocumentEndMarker(t *testing.T) {
	doc := "services:\n  app:\n    image: a\n    environment:\n      U: postgres://db/x\n  db:\n    image: postgres\n...\n# end\n"
	opts := DefaultOptions()
	opts.Consumers = []string{"app/U=pgx"}
	res, err := Migrate(context.Background(), []Input{{Path: filepath.Join(t.TempDir(), "compose.yml"), Data: []byte(doc)}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if out := string(res.Files[0].After); !strings.HasSuffix(out, "volumes:\n  db-socket:\n...\n# end\n") {
		t.Errorf("output:\n%s", out)
	}
}
