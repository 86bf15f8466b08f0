package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/revert"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

func revertCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:         "revert",
		OnUsageError: onUsageError("uds-migrate revert"),
		Usage:        "move socket connections back to TCP (for Kubernetes or separate hosts)",
		UsageText:    "uds-migrate revert [-w|-d|--check] [-f FILE]... | FILE...",
		Description: `The inverse migration: client values that reach a database through its
socket volume point at the database service over TCP again, the socket
mounts are removed, and the volume too when nothing else mounts it. SSL
settings removed by the migration are not restored. Revert covers
PostgreSQL only: the nginx → app server migration is not reverted (undo it
with git).`,
		Flags: append(append(loadFlags(), outputFlags()...), findingFlags("findings on stderr as text, json, sarif or gcc", "none")...),
		Action: reporting("revert", stderr, stderr, func(c *cli.Context, d *docRun) error {
			projects, err := readProjects(c, true, d)
			if err != nil {
				return err
			}
			runs, failed := eachProject(projects, func(p *composeProject) (*rewrite.Result, error) {
				return revert.Revert(context.Background(), p.inputs, p.opts)
			})
			if len(runs) == 0 {
				return noProjects(d, "revert", failed)
			}
			for _, r := range runs {
				r.res.Findings = keepFindings(c, d, r.res.Findings, r.inputs)
			}
			return afterFailures(deliver(c, summarize(c, results(runs), "revert", d), "revert", stdout, d), failed)
		}),
	}
}
