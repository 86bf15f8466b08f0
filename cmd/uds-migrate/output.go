package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/internal/atomicfile"
	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// A reporting command (migrate, plan, validate, revert) hands back one
// findings document and, apart from it, lines for people. In a machine
// format (json, sarif, gcc) the document is the whole of its stream: CI
// redirects it to a file and parses it, so nothing else is written there,
// an error of the run is a finding inside it (UDS001 for the input, UDS002
// for the command line or the run), and --output FILE takes it out of the
// streams altogether (hadolint's and golangci-lint's way).

// docRun is what a reporting command's action hands back for delivery.
type docRun struct {
	// plan is the findings document; nil when the command failed before
	// it had one (then a machine format gets an empty one, with the error).
	plan *report.Plan
	// text renders the document in --format text: report.StyledLines (one
	// line per finding), or report.StyledText for plan.
	text func(io.Writer, report.Plan, report.Style) error
	// notes are lines for people, printed "uds-migrate: NOTE" on stderr
	// after the document: "wrote FILE", "nothing to migrate: WHY". The
	// document says the same in its fields (files[].changed, nothingToDo).
	notes []string
	// after is the smoke report, on stderr after the notes.
	after []byte
	// cfg is the run's config file (an empty one when none was found).
	cfg *config
	// inputs are the compose files read, for the source lines text
	// output quotes on a terminal.
	inputs []rewrite.Input
}

func (d *docRun) note(format string, args ...any) {
	d.notes = append(d.notes, fmt.Sprintf(format, args...))
}

// reporting wraps a reporting command's action: it checks every flag
// before any work (checkFlags), runs the action, and delivers what the
// action handed back (deliverDoc). docStream is where the document goes
// without --output: stdout for plan and validate, stderr for migrate and
// revert (their stdout is the compose file, a diff or a --check list).
func reporting(command string, docStream, stderr io.Writer, action func(*cli.Context, *docRun) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		d := &docRun{text: report.StyledLines, cfg: &config{}}
		cfg, err := loadConfig(c)
		if err == nil {
			d.cfg = cfg
			err = checkFlags(c, docStream == stderr)
		}
		if err == nil {
			err = action(c, d)
		}
		if n := 0; (err == nil || !failedHard(err)) && d.plan != nil {
			if n = failing(c, d.plan); n > 0 && err == nil {
				err = &codeError{exitChanges, nil}
			}
			if n > 0 && !(command == "validate" && c.String("fail-on") == "error") {
				d.note("%d finding(s) at or above --fail-on %s", n, c.String("fail-on"))
			}
		}
		return deliverDoc(c, command, docStream, stderr, d, err)
	}
}

// sharesStream reports whether the document and the lines for people
// would share one stream: a machine format on stderr without --output.
func sharesStream(c *cli.Context, docOnStderr bool) bool {
	return docOnStderr && c.String("output") == "" && report.Structured(c.String("format"))
}

// deliverDoc writes the document (with err as a finding in a machine
// format) to --output or docStream, then the notes and the smoke report
// on stderr unless the document is on stderr in a machine format. It
// returns err marked as documented, so runApp prints its line only (and
// not at all when the document on stderr carries it).
func deliverDoc(c *cli.Context, command string, docStream, stderr io.Writer, d *docRun, err error) error {
	format, path := c.String("format"), c.String("output")
	if report.CheckFormat(format) != nil {
		return err // no format to write: the error says which to use
	}
	var buf bytes.Buffer
	carried := false
	switch {
	case report.Structured(format):
		p := report.FromFindings(command, nil)
		if d.plan != nil {
			p = *d.plan
		}
		if msg := errMessage(err); msg != nil {
			p.Findings = append(p.Findings, errorFindings(msg)...)
			carried = true
		}
		if werr := report.Write(&buf, format, p, reportTool(p)); werr != nil {
			return werr
		}
	case d.plan != nil:
		st := report.Style{}
		if path == "" {
			st = styleFor(docStream, d.inputs)
		}
		if werr := d.text(&buf, *d.plan, st); werr != nil {
			return werr
		}
	}
	if path != "" {
		if werr := writeOutput(path, buf.Bytes()); werr != nil {
			return &documented{exitError, fmt.Errorf("--output %s: %w", path, werr)}
		}
	} else if _, werr := docStream.Write(buf.Bytes()); werr != nil {
		return werr
	}
	shared := sharesStream(c, docStream == stderr)
	if !shared {
		for _, n := range d.notes {
			fmt.Fprintln(stderr, "uds-migrate: "+n)
		}
		stderr.Write(d.after)
	}
	if err == nil {
		return nil
	}
	code := exitError
	var ce *codeError
	if errors.As(err, &ce) {
		code = ce.code
	}
	if carried && shared {
		return &documented{code, nil}
	}
	return &documented{code, errMessage(err)}
}

// failedHard reports whether err ends the run with exit status 2.
func failedHard(err error) bool {
	var ce *codeError
	return err != nil && (!errors.As(err, &ce) || ce.code == exitError)
}

// documented is a reporting command's error once its document is
// written: runApp prints err's line (none when err is nil: the document on
// stderr carries it) and exits with code, writing no second document.
type documented struct {
	code int
	err  error
}

func (e *documented) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

// errMessage is the error a run ends with, or nil when it ends with an
// exit status only (changes pending, validate's findings).
func errMessage(err error) error {
	var ce *codeError
	if errors.As(err, &ce) {
		return ce.err
	}
	return err
}

// errorFindings are an error as findings: one per error errors.Join
// joined (one per project that failed), else one.
func errorFindings(err error) []report.Finding {
	var out []report.Finding
	for _, e := range splitErrors(err) {
		out = append(out, errorFinding(e))
	}
	return out
}

// splitErrors returns the errors errors.Join joined into err, or err.
func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// errorFinding is an error as a finding: UDS001 at the input's position
// for an input error, UDS002 for the command line or the run.
func errorFinding(err error) report.Finding {
	var in inputError
	if errors.As(err, &in) {
		return report.ErrorFinding(report.InputErrorCode, in.error)
	}
	return report.ErrorFinding(report.RunErrorCode, err)
}

// writeOutput writes --output FILE: atomically (a temporary file renamed
// over it) for a regular file or a new one (mode 0644, a report anyone on
// the machine may read, as the compose files are), so a reader never sees
// half a document; directly for anything else (/dev/stdout, a pipe).
func writeOutput(path string, data []byte) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.Mode().IsRegular():
		return atomicfile.WriteAll([]atomicfile.File{{Path: path, Data: data}})
	case err == nil && fi.IsDir():
		return errors.New("is a directory")
	case err == nil:
		return os.WriteFile(path, data, 0o644)
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".uds-migrate-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Sync(), f.Chmod(0o644), f.Close()); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// earlyDocument writes the document of a reporting command that failed
// before its action ran (a flag urfave/cli refused, a flag before the
// command's name that it lacks): in a machine format that document is
// still the whole of its stream, with the error as UDS002. It reports
// whether stderr carries the error already (the document went there).
func earlyDocument(app *cli.App, args []string, err error, stderr io.Writer) (onStderr bool) {
	command, docOnStderr, format, output := scanCommandLine(app, args)
	if command == "" || !report.Structured(format) {
		return false
	}
	var buf bytes.Buffer
	p := report.FromFindings(command, nil)
	p.Findings = append(p.Findings, errorFindings(err)...)
	if report.Write(&buf, format, p, reportTool(p)) != nil {
		return false
	}
	switch {
	case output != "":
		if writeOutput(output, buf.Bytes()) != nil {
			return false
		}
	case docOnStderr:
		stderr.Write(buf.Bytes())
		return true
	default:
		app.Writer.Write(buf.Bytes())
	}
	return false
}

// scanCommandLine reads a command line urfave/cli could not parse, as far
// as earlyDocument needs: the reporting command it names ("" for none:
// bench, explain, ...), whether its document goes to stderr, and the last
// --format and --output values.
func scanCommandLine(app *cli.App, args []string) (command string, docOnStderr bool, format, output string) {
	command, docOnStderr, format = "migrate", true, "text"
	flags := app.Flags
	named := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !isFlag(a) {
			if cmd := findCmd(app.Commands, a); cmd != nil && !named {
				named, flags = true, cmd.Flags
				command, docOnStderr = "", false
				switch cmd.Name {
				case "plan", "validate":
					command = cmd.Name
				case "revert":
					command, docOnStderr = cmd.Name, true
				}
			}
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasVal && (takesValue(flags, name) || takesValue(app.Flags, name)) && i+1 < len(args) {
			i++
			val = args[i]
		}
		switch name {
		case "format":
			format = val
		case "output", "o":
			output = val
		}
	}
	return command, docOnStderr, format, output
}

// reportTool is what a document says about the run: the build's version
// and the root its SARIF URIs are relative to (srcRoot of its first file).
func reportTool(p report.Plan) report.Tool {
	first := ""
	for _, f := range p.Files {
		if first == "" && f.Path != stdinName {
			first = f.Path
		}
	}
	for _, f := range p.Findings {
		if first == "" && f.File != "" && f.File != stdinName {
			first = f.File
		}
	}
	return report.Tool{Version: version(), SrcRoot: srcRoot(first)}
}

// srcRoot is the top level of the git repository that holds file (the
// nearest folder above it with a .git entry: a directory, or the file a
// worktree or submodule has), so SARIF URIs name files as GitHub code
// scanning reads them, from the repository root, whatever the working
// directory. Without a repository (or a file) it is the working
// directory. "" when neither can be known.
func srcRoot(file string) string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	start := wd
	if file != "" {
		if abs, err := filepath.Abs(file); err == nil {
			start = filepath.Dir(abs)
		}
	}
	for dir := start; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if file == "" {
		return wd
	}
	// A file outside any repository: the working directory's repository,
	// else the working directory itself.
	return srcRoot("")
}
