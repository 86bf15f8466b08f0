package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/rewrite"
	"github.com/uds-migrate/uds-migrate/smoke"
)

// smokeFlags are the --smoke flags migrate and validate share.
func smokeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "smoke", Usage: "then connect with every socket value through a throwaway PostgreSQL in the migrated socket layout, and run a short TCP-vs-socket benchmark (compose project when Docker answers); exit 2 when a value cannot connect"},
		&cli.DurationFlag{Name: "smoke-duration", Value: smoke.DefaultDuration, Usage: "with --smoke: the benchmark's measuring time"},
		&cli.StringFlag{Name: "smoke-target", Value: smoke.TargetAuto, Usage: "with --smoke: auto (compose when docker info succeeds, else embedded), embedded or compose"},
	}
}

// smokeAfterMigrate runs the smoke check on a migration's result once emit
// has delivered it, and returns the exit status to report: emit's (err),
// unless emit failed (nothing to prove) or the smoke check fails (exit 2,
// which outranks "changes pending").
func smokeAfterMigrate(c *cli.Context, res *rewrite.Result, err error, stderr io.Writer) error {
	if !c.Bool("smoke") || res == nil || failedHard(err) {
		return err
	}
	files, _ := composeFiles(c)
	n := len(files)
	if n > len(res.Files) {
		n = len(res.Files)
	}
	return smokeRun(c, res.Files, n, res.Changes, err, stderr)
}

// smokeAfterValidate runs the smoke check on an already migrated project.
// err is validate's own result (nil, or exit 1 for findings).
func smokeAfterValidate(c *cli.Context, inputs []rewrite.Input, err error, stderr io.Writer) error {
	if !c.Bool("smoke") {
		return err
	}
	var files []rewrite.FileResult
	for _, in := range inputs {
		files = append(files, rewrite.FileResult{Path: in.Path, Before: in.Data, After: in.Data})
	}
	return smokeRun(c, files, len(files), nil, err, stderr)
}

func smokeRun(c *cli.Context, files []rewrite.FileResult, n int, changes []rewrite.Change, err error, stderr io.Writer) error {
	switch t := c.String("smoke-target"); t {
	case smoke.TargetAuto, smoke.TargetEmbedded, smoke.TargetCompose:
	default:
		return usageErr("--smoke-target %q: want auto, embedded or compose", t)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := smoke.Options{
		Rewrite: options(c), ComposeFiles: n, Rewritten: changes,
		Duration: c.Duration("smoke-duration"), Target: c.String("smoke-target"),
	}
	if isTerminal(stderr) {
		// Progress only for a person watching: captured output stays
		// the report alone.
		opts.Log = stderr
	}
	rep, serr := smoke.Run(ctx, files, opts)
	if rep != nil {
		rep.Write(stderr)
	}
	var ce *smoke.ConnError
	if errors.As(serr, &ce) {
		// The report's FAIL lines carry each driver's error; the summary
		// only names the values.
		var names []string
		for _, f := range ce.Failed {
			names = append(names, f.Service+"/"+f.Key)
		}
		return &codeError{exitError, fmt.Errorf("--smoke: %d client value(s) cannot connect through the migrated socket path: %s", len(names), strings.Join(names, ", "))}
	}
	if serr != nil {
		return &codeError{exitError, fmt.Errorf("--smoke: %w", serr)}
	}
	return err
}

// failedHard reports whether err is an exit-2 failure (not "changes
// pending").
func failedHard(err error) bool {
	ce, ok := err.(*codeError)
	return err != nil && (!ok || ce.code == exitError)
}
