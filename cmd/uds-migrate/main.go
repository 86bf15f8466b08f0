// Command uds-migrate moves docker compose services that reach PostgreSQL
// over TCP to a Unix-domain socket shared through a named volume.
//
//	uds-migrate compose.yml > compose.uds.yml
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sirupsen/logrus"
	"github.com/urfave/cli/v2"
)

// Exit codes, as kubectl diff and gofmt -l users expect.
const (
	exitOK      = 0
	exitChanges = 1 // --check / --diff: something would change; validate: findings
	exitError   = 2
)

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// codeError carries an exit code through urfave/cli.
type codeError struct {
	code int
	err  error // nil: the message was already printed
}

func (e *codeError) Unwrap() error { return e.err }

func (e *codeError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

// run is main without os.Exit, for tests.
func run(args []string, stdout, stderr io.Writer) int {
	// logrus is imported for this line only: compose-go logs warnings of
	// its own through logrus's global logger, unpositioned, on stderr
	// (v2.16.2 template/template.go: "The %q variable is not set";
	// transform/external.go: external.name is deprecated). Our findings
	// say what matters, with positions, so compose-go's log is silenced.
	logrus.SetOutput(io.Discard)
	return runApp(newApp(stdout, stderr), args, stderr)
}

// runApp runs app on a command line and returns the exit status.
func runApp(app *cli.App, args []string, stderr io.Writer) int {
	if len(args) > 1 && args[1] == completeArg {
		complete(app, args[2:], app.Writer)
		return exitOK
	}
	moved, err := flagsAnywhere(app, args)
	if err == nil {
		args = moved
		err = app.Run(args)
	}
	if err == nil {
		return exitOK
	}
	var doc *documented
	if errors.As(err, &doc) {
		if doc.err != nil {
			printError(stderr, doc.err)
		}
		return doc.code
	}
	var ce *codeError
	if errors.As(err, &ce) && ce.err == nil {
		return ce.code
	}
	if (ce == nil || ce.code == exitError) && earlyDocument(app, args, errMessage(err), stderr) {
		return exitError // the document on stderr carries the error
	}
	if errors.As(err, &ce) {
		if ce.err != nil {
			printError(stderr, ce.err)
		}
		return ce.code
	}
	printError(stderr, err)
	return exitError
}

// printError writes "uds-migrate: MESSAGE", one line per error that
// errors.Join joined (one per project that failed).
func printError(stderr io.Writer, err error) {
	for _, e := range splitErrors(err) {
		fmt.Fprintln(stderr, "uds-migrate: "+e.Error())
	}
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "uds-migrate",
		Version:   versionLong(),
		Usage:     "move compose services from TCP to a shared Unix socket for PostgreSQL",
		UsageText: "uds-migrate [flags] [FILE...]\nuds-migrate command [flags] [FILE...]",
		Description: `Reads a compose file, finds the PostgreSQL services and the services that
connect to them, adds a named socket volume (read-write on the database at
its socket directory, read-only on each client) and rewrites connection
strings to socket form. Everything else in the file stays byte-identical.

Examples:
   uds-migrate compose.yml > compose.uds.yml
   uds-migrate -d compose.yml          # unified diff for review
   uds-migrate --check compose.yml     # CI: exit 1 when a migration is pending
   uds-migrate -w -f compose.yml -f compose.override.yml

Exit status: 0 done (or nothing to do), 1 changes pending (--check, --diff),
2 error.`,
		Flags:    migrateFlags(),
		Commands: commands(stdout, stderr),
		Action: reporting("migrate", stderr, stderr, func(c *cli.Context, d *docRun) error {
			return migrateAction(c, d, stdout, stderr)
		}),
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError:         onUsageError("uds-migrate"),
	}
}

// commands lists the subcommands; each lives in its own file.
func commands(stdout, stderr io.Writer) []*cli.Command {
	return []*cli.Command{
		planCommand(stdout, stderr),
		revertCommand(stdout, stderr),
		validateCommand(stdout, stderr),
		benchCommand(stdout, stderr),
		explainCommand(stdout),
		completionCommand(stdout),
		manCommand(stdout),
	}
}
