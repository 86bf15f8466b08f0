package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/revert"
	"github.com/uds-migrate/uds-migrate/rewrite"
	"github.com/uds-migrate/uds-migrate/validate"
)

func validateCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:         "validate",
		OnUsageError: onUsageError("uds-migrate validate"),
		Usage:        "check a compose project that uses Unix sockets for PostgreSQL",
		UsageText:    "uds-migrate validate [--format text|json|sarif|gcc] [-f FILE]... | FILE...",
		Description: `Static checks of a socket setup, migrated by this tool or by hand: a
single-$ $FactoryArg, a JDBC host other than localhost, socketFactoryArg
naming a directory, libpq host naming the socket file, a socket path no
mounted volume holds, a volume no database mounts at its socket directory,
a port that does not match the server's, a read-only or bind-mounted socket
directory, two servers sharing one, sslmode=require with pgjdbc, a socket
file mounted instead of its directory. Findings go to stdout in the
--format asked (the same JSON schema as plan's; json, sarif and gcc carry
an unreadable input as a finding of code UDS001).

Exit status: 0 clean (warnings may be printed), 1 errors found, 2 unreadable input.`,
		Flags: append(append(loadFlags(), findingFlags("text, json, sarif or gcc", "error")...), smokeFlags()...),
		Action: reporting("validate", stdout, stderr, func(c *cli.Context, d *docRun) error {
			projects, err := readProjects(c, false, d)
			if err != nil {
				return err
			}
			if len(projects) > 1 && c.Bool("smoke") {
				return usageErr("--smoke proves one project: run it once per FILE")
			}
			var findings []rewrite.Finding
			var bare []string // projects with no socket setup at all
			_, failed := eachProject(projects, func(p *composeProject) (*rewrite.Result, error) {
				fs, err := validate.Validate(context.Background(), p.inputs, p.opts)
				findings = append(findings, fs...)
				if err == nil && len(fs) == 0 && !hasSocketSetup(p) {
					bare = append(bare, p.inputs[0].Path)
				}
				return nil, err
			})
			var inputs []rewrite.Input
			for _, p := range projects {
				inputs = append(inputs, p.inputs...)
			}
			findings = keepFindings(c, d, findings, inputs)
			p := report.FromFindings("validate", findings)
			d.plan = &p
			if len(bare) > 0 && !c.Bool("quiet") {
				// A clean validate of a project that uses no socket
				// would read as "the socket setup is right".
				why := "no service reaches PostgreSQL through a Unix socket (no socket-form value, no socket volume at a database's socket directory): `uds-migrate plan` shows the migration"
				if len(projects) == 1 {
					p.Nothing = why
					d.note("nothing to validate: %s", why)
				} else {
					for _, f := range bare {
						d.note("%s: nothing to validate: %s", f, why)
					}
				}
			}
			errs := 0
			for _, f := range findings {
				if f.Severity == rewrite.SevError {
					errs++
				}
			}
			if errs > 0 {
				d.note("%d error(s) in the socket setup", errs)
			}
			if c.Bool("smoke") && failed == nil {
				if err := smokeValidated(c, projects[0], d, stderr); err != nil {
					return err
				}
			}
			return failed // exit 1 for errors: --fail-on error, validate's default
		}),
	}
}

// hasSocketSetup reports whether a project reaches a database through a
// Unix socket at all: revert's analysis finds every socket-form value and
// socket mount it would move back to TCP, and those it leaves (a value in
// a configuration file).
func hasSocketSetup(p *composeProject) bool {
	res, err := revert.Revert(context.Background(), p.inputs, p.opts)
	return err != nil || res.Changed() || res.SocketsKept > 0
}
