package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

func planCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:         "plan",
		OnUsageError: onUsageError("uds-migrate plan"),
		Usage:        "explain what a migration would change and why, without editing anything",
		UsageText:    "uds-migrate plan [--format text|json|sarif|gcc] [-f FILE]... [FILE]",
		Description: `Lists the databases found (service, image family, socket directory, port),
each change (client values before and after, passwords masked as ****;
mounts and volumes added, with the reason), the findings and the manual
steps left. --format json follows docs/plan.schema.json (versioned by its
"schema" field); --format sarif writes SARIF 2.1.0 for code scanning;
--format gcc writes file:line:col: warning: message [CODE] lines. In json,
sarif and gcc an unreadable input is a finding of code UDS001 at its
position (exit status still 2).`,
		Flags: append(projectFlags(), findingFlags("text, json, sarif or gcc", "none")...),
		Action: reporting("plan", stdout, stderr, func(c *cli.Context, d *docRun) error {
			proj, err := readProject(c, false, d)
			if err != nil {
				return err
			}
			res, err := rewrite.Migrate(context.Background(), proj.inputs, proj.opts)
			if err != nil {
				return failInput(err)
			}
			res.Findings = keepFindings(c, d, res.Findings, proj.inputs)
			p := report.FromResult("plan", reportInput(res))
			d.plan, d.text = &p, report.StyledText
			return nil
		}),
	}
}
