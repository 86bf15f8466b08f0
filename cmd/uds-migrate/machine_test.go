package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/uds-migrate/uds-migrate/internal/schematest"
)

var (
	// toolLine is a golden script line that runs the tool: conditions,
	// then ! or ?, then exec uds-migrate ARGS.
	toolLine = regexp.MustCompile(`^((?:\[[^\]]*\]\s*)*)(?:[!?]\s*)?exec\s+uds-migrate(\s.*)?$`)
	// assertLine is a line that checks output the machine run changes.
	assertLine = regexp.MustCompile(`^(?:\[[^\]]*\]\s*)*(?:[!?]\s*)?(cmp|cmpenv|stdout|stderr|grep|exists)\s`)
)

// machineScript turns a golden script into its machine-format twin: every
// run of the tool becomes `machine FORMAT ARGS` (the same command line
// with --format FORMAT last, so it wins), the checks of its text output
// are dropped, and every other step (files, cd, env, stdin, git) stays, so
// each command runs in the state the golden gives it.
func machineScript(script []byte, format string) []byte {
	var b strings.Builder
	for _, line := range strings.Split(string(script), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#") || assertLine.MatchString(trimmed):
			continue
		case toolLine.MatchString(trimmed):
			m := toolLine.FindStringSubmatch(trimmed)
			b.WriteString(m[1] + "machine " + format + m[2] + "\n")
		default:
			b.WriteString(line + "\n")
		}
	}
	return []byte(b.String())
}

// TestMachineDocuments replays every golden case with --format json and
// --format sarif on each run of migrate, plan, validate and revert (issue
// #23 point 2): the stream that carries the document (stdout for plan and
// validate, stderr for migrate and revert, the file of --output) must be
// exactly one JSON document ending in a newline, valid against its
// schema (docs/plan.schema.json; SARIF 2.1.0, report/testdata), and an
// exit status 2 must be an error finding inside it (UDS001 or UDS002).
func TestMachineDocuments(t *testing.T) {
	goldens, _ := filepath.Glob("../../testdata/script/*/*.txtar")
	if len(goldens) < 100 {
		t.Fatalf("found %d golden cases; did they move?", len(goldens))
	}
	dir := t.TempDir()
	for _, g := range goldens {
		ar, err := txtar.ParseFile(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"json", "sarif"} {
			twin := &txtar.Archive{Comment: machineScript(ar.Comment, format), Files: ar.Files}
			name := strings.TrimSuffix(filepath.Base(g), ".txtar") + "-" + format + ".txtar"
			if err := os.WriteFile(filepath.Join(dir, name), txtar.Format(twin), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	schemas := map[string]*jsonschema.Schema{
		"json":  schematest.Compile(t, "../../docs/plan.schema.json"),
		"sarif": schematest.Compile(t, "../../report/testdata/sarif-2.1.0-subset.schema.json"),
	}
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){}
	for k, v := range scriptCmds {
		cmds[k] = v
	}
	var runs atomic.Int64
	cmds["machine"] = func(ts *testscript.TestScript, neg bool, args []string) {
		format, args := args[0], args[1:]
		for _, a := range args {
			if slices.Contains([]string{"-h", "--help", "help", "-v", "--version", completionFlag, completeArg}, a) {
				ts.Exec("uds-migrate", args...) // help, not a report
				return
			}
		}
		command, docOnStderr, _, output := scanCommandLine(newApp(io.Discard, io.Discard), append([]string{"uds-migrate"}, args...))
		if command == "" {
			ts.Exec("uds-migrate", args...) // bench, explain, completion, man
			return
		}
		runs.Add(1)
		err := ts.Exec("uds-migrate", append(args, "--format", format)...)
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		var doc []byte
		switch {
		case output != "":
			doc, err = os.ReadFile(ts.MkAbs(output))
			ts.Check(err)
		case docOnStderr:
			doc = []byte(ts.ReadFile("stderr"))
		default:
			doc = []byte(ts.ReadFile("stdout"))
		}
		if err := oneDocument(doc, schemas[format]); err != nil {
			ts.Fatalf("uds-migrate %s --format %s (exit %d): %v\n%s", strings.Join(args, " "), format, code, err, doc)
		}
		if code == exitError && !bytes.Contains(doc, []byte(`"UDS001"`)) && !bytes.Contains(doc, []byte(`"UDS002"`)) {
			ts.Fatalf("uds-migrate %s --format %s: exit 2, but the document holds no UDS001/UDS002 finding:\n%s", strings.Join(args, " "), format, doc)
		}
	}
	// The group waits for the parallel scripts before the count is read.
	t.Run("goldens", func(t *testing.T) { testscript.Run(t, testscript.Params{Dir: dir, Cmds: cmds}) })
	if n := runs.Load(); n < 400 {
		t.Errorf("only %d machine-format runs: the golden scripts lost their commands?", n)
	}
}

// oneDocument checks that b is one JSON document and nothing else (but
// whitespace), ends in a newline and is valid against s.
func oneDocument(b []byte, s *jsonschema.Schema) error {
	if !bytes.HasSuffix(b, []byte("\n")) {
		return errors.New("no final newline")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	rest := b[dec.InputOffset():]
	if len(bytes.TrimSpace(rest)) > 0 {
		return errors.New("text after the document: " + string(rest))
	}
	return schematest.Validate(s, b)
}

// TestOneDocumentCanFail proves oneDocument rejects what issue #23 saw.
func TestOneDocumentCanFail(t *testing.T) {
	s := schematest.Compile(t, "../../docs/plan.schema.json")
	good := `{"schema":"uds-migrate.plan/v1","files":[],"databases":[],"changes":[],"findings":[],"manualSteps":[]}`
	if err := oneDocument([]byte(good+"\n"), s); err != nil {
		t.Fatalf("a valid document was refused: %v", err)
	}
	for _, bad := range []string{good, good + "\nuds-migrate: wrote compose.yml\n", good + good + "\n", `{"schema":"x"}` + "\n", ""} {
		if oneDocument([]byte(bad), s) == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
