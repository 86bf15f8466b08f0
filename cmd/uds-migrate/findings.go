package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// findingFlags are the flags of every command that reports findings
// (migrate, plan, validate, revert): one model, four formats.
func findingFlags(formatUsage string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Value: "text", Usage: formatUsage},
		&cli.StringSliceFlag{Name: "ignore", Usage: "drop findings with this `CODE` (repeatable), e.g. --ignore UDS102"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "report errors only (no warnings or notes)"},
	}
}

// inputError marks an error about the input (unreadable, not a compose
// project): structured formats carry it as a finding (report.FromError).
type inputError struct{ error }

func (e inputError) Unwrap() error { return e.error }

// failInput is an input error with exit status 2.
func failInput(err error) *codeError { return &codeError{exitError, inputError{err}} }

// checkFindingFlags refuses an unknown --format or --ignore code.
func checkFindingFlags(c *cli.Context) error {
	if err := report.CheckFormat(c.String("format")); err != nil {
		return &codeError{exitError, err}
	}
	for _, code := range c.StringSlice("ignore") {
		if _, ok := rewrite.LookupCode(code); !ok {
			return &codeError{exitError, fmt.Errorf("--ignore %s: no such finding code (see uds-migrate explain)", strings.ToUpper(code))}
		}
	}
	return nil
}

// keepFindings drops the findings --ignore names and, with --quiet,
// everything below ERROR.
func keepFindings(c *cli.Context, fs []rewrite.Finding) []rewrite.Finding {
	ignore := map[string]bool{}
	for _, code := range c.StringSlice("ignore") {
		ignore[strings.ToUpper(code)] = true
	}
	var out []rewrite.Finding
	for _, f := range fs {
		if ignore[f.Code] || (c.Bool("quiet") && f.Severity != rewrite.SevError) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// reporting wraps a command's action: it checks the finding flags first,
// and in a structured format (json, sarif, gcc) writes an input error to
// out as a finding at its position, so `plan --format sarif > uds.sarif`
// never uploads an empty file. The exit status stays 2. When out is
// stderr (migrate), the finding replaces the plain error line.
func reporting(command string, out, stderr io.Writer, action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if err := checkFindingFlags(c); err != nil {
			return err
		}
		err := action(c)
		var in inputError
		format := c.String("format")
		if !report.Structured(format) || !errors.As(err, &in) {
			return err
		}
		if werr := report.Write(out, format, report.FromError(command, in.error), version()); werr != nil {
			return werr
		}
		if out == stderr {
			return &codeError{exitError, nil}
		}
		return err
	}
}

// writeFindings renders a command's document in the --format asked; text
// is the plain finding lines.
func writeFindings(c *cli.Context, w io.Writer, p report.Plan) error {
	if f := c.String("format"); report.Structured(f) {
		return report.Write(w, f, p, version())
	}
	return report.Lines(w, p)
}

// reportInput is what report needs of a migration's or a revert's result.
func reportInput(res *rewrite.Result) report.Input {
	in := report.Input{Changes: res.Changes, Findings: res.Findings, NothingReason: res.NothingReason}
	for _, f := range res.Files {
		in.Files = append(in.Files, report.File{Path: f.Path, Changed: f.Changed})
	}
	for _, d := range res.DBs {
		in.DBs = append(in.DBs, report.Database{Service: d.Service, Family: d.Family, SocketDir: d.SocketDir, Port: d.Port, Volume: d.Volume, Names: d.Names})
	}
	return in
}
