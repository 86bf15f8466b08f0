package bench

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func benchSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	const path = "../docs/bench.schema.json"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(path, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The JSON output follows docs/bench.schema.json, one client or several;
// the schema rejects another version, so the check can fail.
func TestJSONFollowsSchema(t *testing.T) {
	s := benchSchema(t)
	one := testReport(t)
	two, err := analyzeClients([]Client{&fakeClient{name: "pgbench"}, &fakeClient{name: "pgx"}},
		[][]Round{steady(MinRounds, 1.1), steady(MinRounds, 1.2)}, Machine{Cores: 2, LoadBefore: -1, LoadAfter: -1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	two.Mode, two.Conns = Simple, 4
	for _, r := range []*Report{one, two} {
		var b bytes.Buffer
		if err := r.Render(&b, "json"); err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(doc); err != nil {
			t.Errorf("%v\n%s", err, b.String())
		}
		v2 := strings.Replace(b.String(), "uds-migrate.bench/v1", "uds-migrate.bench/v2", 1)
		doc, _ = jsonschema.UnmarshalJSON(strings.NewReader(v2))
		if s.Validate(doc) == nil {
			t.Error("a report of another schema version validated")
		}
	}
}
