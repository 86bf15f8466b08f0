package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "dev"

func planCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "explain what a migration would change and why, without editing anything",
		UsageText: "uds-migrate plan [--format text|json|sarif] [-f FILE]... [FILE]",
		Description: `Lists the databases found (service, image family, socket directory, port),
each change (client values before and after, passwords masked as ****;
mounts and volumes added, with the reason), the findings and the manual
steps left. --format json follows docs/plan.schema.json (versioned by its
"schema" field); --format sarif writes SARIF 2.1.0 for code scanning.`,
		Flags: append(projectFlags(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, json or sarif"}),
		Action: func(c *cli.Context) error {
			inputs, err := readProject(c, false)
			if err != nil {
				return err
			}
			res, err := rewrite.Migrate(context.Background(), inputs, options(c))
			if err != nil {
				return &codeError{exitError, err}
			}
			switch c.String("format") {
			case "text":
				err = report.Text(stdout, res)
			case "json":
				err = report.JSON(stdout, res)
			case "sarif":
				err = report.SARIF(stdout, res, version)
			default:
				return &codeError{exitError, fmt.Errorf("--format %q: want text, json or sarif", c.String("format"))}
			}
			return err
		},
	}
}
