package main

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

const utf8BOM = "\xef\xbb\xbf"

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script/*.txtar from the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"uds-migrate": func() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the golden CLI cases in testdata/script. Each case migrates
// its input, compares stdout and stderr with the expected files, and runs the
// tool again on its own output to prove a second run changes nothing.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "../../testdata/script",
		UpdateScripts: *update,
		Cmds:          scriptCmds,
	})
}

// scriptCmds are the commands the golden scripts use beyond testscript's.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// crlf FILE...: convert LF line endings to CRLF in place (txtar
	// archives cannot hold CRLF files reliably).
	"crlf": func(ts *testscript.TestScript, neg bool, args []string) {
		for _, a := range args {
			p := ts.MkAbs(a)
			b, err := os.ReadFile(p)
			ts.Check(err)
			b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
			ts.Check(os.WriteFile(p, b, 0o644))
		}
	},
	// bom FILE...: prefix a UTF-8 byte order mark (an editor would
	// strip an invisible one from the archive).
	"bom": func(ts *testscript.TestScript, neg bool, args []string) {
		for _, a := range args {
			p := ts.MkAbs(a)
			b, err := os.ReadFile(p)
			ts.Check(err)
			if !bytes.HasPrefix(b, []byte(utf8BOM)) {
				ts.Check(os.WriteFile(p, append([]byte(utf8BOM), b...), 0o644))
			}
		}
	},
}
