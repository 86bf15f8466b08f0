package templates

import (
	"strings"
	"testing"
)

func TestEveryWorkloadHasScriptAndSetup(t *testing.T) {
	for _, name := range []string{"lookup-small", "lookup-large", "heavy", "setup-small", "setup-large", "teardown"} {
		s, err := PgbenchScript(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(s, "uds_bench_") {
			t.Errorf("%s does not touch the uds_bench_ tables", name)
		}
	}
}

func TestMissingNameListsWhatExists(t *testing.T) {
	_, err := PgbenchScript("nope")
	if err == nil || !strings.Contains(err.Error(), "lookup-small") {
		t.Fatalf("error %v does not list the scripts that exist", err)
	}
}
