package main

import (
	"bytes"
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

// smokeValidated runs the smoke check on an already migrated project.
func smokeValidated(c *cli.Context, p *composeProject, d *docRun, stderr io.Writer) error {
	var files []rewrite.FileResult
	for _, in := range p.inputs {
		files = append(files, rewrite.FileResult{Path: in.Path, Before: in.Data, After: in.Data})
	}
	return smokeRun(c, p, files, nil, d, stderr)
}

// smokeRun proves project p's files (its compose files first, then other
// files a migration rewrote; their new bytes, not the disk's) with
// smoke.Run. The report goes to d.after; progress lines to stderr, live,
// when it is a terminal. Errors (exit 2) name the values that cannot
// connect; the flags were checked before any work (checkFlags).
func smokeRun(c *cli.Context, p *composeProject, files []rewrite.FileResult, changes []rewrite.Change, d *docRun, stderr io.Writer) error {
	// Ctrl-C (or SIGTERM) cancels the run; smoke.Run stops its server or
	// takes down its compose project before it returns, and the run is
	// reported as interrupted (exit 130, 143), not as a failed connection.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var got os.Signal
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case got = <-sigs:
			cancel()
		case <-done:
		}
	}()
	opts := smoke.Options{
		Rewrite: p.opts, ComposeFiles: min(len(p.inputs), len(files)), Rewritten: changes,
		Duration: c.Duration("smoke-duration"), Target: c.String("smoke-target"),
	}
	if isTerminal(stderr) {
		// Progress only for a person watching: captured output stays
		// the report alone.
		opts.Log = stderr
	}
	rep, serr := smoke.Run(ctx, files, opts)
	if ctx.Err() != nil {
		sig, _ := got.(syscall.Signal)
		return &codeError{128 + int(sig), fmt.Errorf("--smoke: interrupted (%v); its throwaway server and compose project are gone", got)}
	}
	if rep != nil {
		var b bytes.Buffer
		rep.Write(&b)
		d.after = b.Bytes()
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
	return nil
}
