package report

import (
	"reflect"
	"testing"
)

func TestMergeShared(t *testing.T) {
	f := func(svc, msg string, line int) Finding {
		return Finding{File: "c.yml", Line: line, Column: 5, Severity: "WARNING", Code: "UDS120", Service: svc, Key: "DB_HOST", Message: msg}
	}
	in := []Finding{
		f("app", "app/DB_HOST: the application reads it; --host-var app/DB_HOST", 4),
		f("web", "web/DB_HOST: the application reads it; --host-var web/DB_HOST", 4),
		f("web-2", "web-2/DB_HOST: other text; --host-var web-2/DB_HOST", 4),
		f("api", "api/DB_HOST: the application reads it; --host-var api/DB_HOST", 9),
	}
	got := MergeShared(in)
	want := []Finding{
		f("app, web", "for each SERVICE of app, web: SERVICE/DB_HOST: the application reads it; --host-var SERVICE/DB_HOST", 4),
		in[2], // another message: not merged
		in[3], // another line
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("MergeShared:\n got %+v\nwant %+v", got, want)
	}
	if got := replaceWord("app/X application web-app app", "app", "S"); got != "S/X application web-app S" {
		t.Errorf("replaceWord = %q", got)
	}
}
