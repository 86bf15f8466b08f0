package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

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
		Flags: append(append(loadFlags(), outputFlags()...), findingFlags("findings on stderr as text, json, sarif or gcc")...),
		Action: reporting("revert", stderr, stderr, func(c *cli.Context, d *docRun) error {
			projects, err := readProjects(c, true)
			if err != nil {
				return err
			}
			results, err := eachProject(projects, func(in []rewrite.Input) (*rewrite.Result, error) {
				return rewrite.Revert(context.Background(), in, options(c))
			})
			if err != nil {
				return err
			}
			for _, res := range results {
				res.Findings = keepFindings(c, res.Findings)
			}
			return deliver(c, summarize(c, results, "revert", d), "revert", stdout, d)
		}),
	}
}
