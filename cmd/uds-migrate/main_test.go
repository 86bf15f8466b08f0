package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

const utf8BOM = "\xef\xbb\xbf"

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script/*/*.txtar from the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"uds-migrate": func() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) },
	})
}

// goldenFolders are the folders of testdata/script, by concern: what a
// golden is about decides where it goes (the question "show me the
// revert cases" is answered by a folder name).
var goldenFolders = []string{
	"migrate",   // the PostgreSQL migration's mechanics: files, mounts, volumes, names, layouts
	"dialect",   // one connection-value form and its socket form
	"knowledge", // what the catalogue, the project's evidence and consumers say
	"validate",  // validate's checks of a socket setup
	"revert",    // the way back to TCP
	"proxy",     // the nginx → app server migration
	"cli",       // flags, formats, output, smoke, the command itself
	"realworld", // real projects' compose files
	"trials",    // cases found in trial runs
}

// TestScripts runs the golden CLI cases in testdata/script/<folder>/, one
// subtest per folder. Each case migrates its input, compares stdout and
// stderr with the expected files, and runs the tool again on its own
// output to prove a second run changes nothing. A case outside the
// folders fails: it would run, but nobody would find it.
func TestScripts(t *testing.T) {
	loose, _ := filepath.Glob("../../testdata/script/*.txtar")
	for _, f := range loose {
		t.Errorf("%s: put it in the testdata/script folder of its concern (%s)", filepath.Base(f), strings.Join(goldenFolders, ", "))
	}
	dirs, _ := filepath.Glob("../../testdata/script/*")
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && !slices.Contains(goldenFolders, filepath.Base(d)) {
			t.Errorf("testdata/script/%s is not one of the golden folders (%s)", filepath.Base(d), strings.Join(goldenFolders, ", "))
		}
	}
	for _, folder := range goldenFolders {
		t.Run(folder, func(t *testing.T) {
			testscript.Run(t, testscript.Params{
				Dir:           filepath.Join("../../testdata/script", folder),
				UpdateScripts: *update,
				Cmds:          scriptCmds,
			})
		})
	}
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
