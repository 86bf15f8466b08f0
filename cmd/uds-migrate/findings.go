package main

import (
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/rewrite"
	"github.com/uds-migrate/uds-migrate/smoke"
)

// findingFlags are the flags of every command that reports findings
// (migrate, plan, validate, revert): one model, four formats. failOn is
// the command's --fail-on default (validate: error; the others: none).
func findingFlags(formatUsage, failOn string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Value: "text", Usage: formatUsage},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the findings (the whole document in json, sarif or gcc) to `FILE`, atomically, instead of the stream; lines for people stay on stderr"},
		&cli.StringSliceFlag{Name: "ignore", Usage: "drop findings with this `CODE` (repeatable), e.g. --ignore UDS102"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "report errors only (no warnings or notes)"},
		&cli.StringFlag{Name: "fail-on", Value: failOn, Usage: "exit 1 when a finding of this `LEVEL` or above is left (after --ignore, the config file and suppression comments): error, warning, info or none"},
		&cli.StringFlag{Name: "config", Usage: "read this config `FILE` (default: the nearest .uds-migrate.yaml from the project's folder up to the repository's top level)"},
	}
}

// inputError marks an error about the input (unreadable, not a compose
// project): structured formats carry it as a finding of code UDS001
// (report.InputErrorCode) at its position.
type inputError struct{ error }

func (e inputError) Unwrap() error { return e.error }

// failInput is an input error with exit status 2.
func failInput(err error) *codeError { return &codeError{exitError, inputError{err}} }

// checkFlags refuses, before any work, a flag value the command cannot
// use: an unknown --format or --ignore code, --output naming a directory,
// a --smoke-target, --smoke-duration or --auth-local outside its values,
// and --smoke where its report would share stderr with a machine
// document. docOnStderr: the command writes its document on stderr.
func checkFlags(c *cli.Context, docOnStderr bool) error {
	if err := report.CheckFormat(c.String("format")); err != nil {
		return &codeError{exitError, err}
	}
	for _, code := range c.StringSlice("ignore") {
		if _, ok := rewrite.LookupCode(code); !ok {
			return usageErr("--ignore %s: no such finding code (see uds-migrate explain)", strings.ToUpper(code))
		}
	}
	if _, ok := failLevels[strings.ToLower(c.String("fail-on"))]; !ok {
		return usageErr("--fail-on %q: want error, warning, info or none", c.String("fail-on"))
	}
	if out := c.String("output"); out != "" {
		if fi, err := os.Stat(out); err == nil && fi.IsDir() {
			return usageErr("--output %s: is a directory, want a file", out)
		}
	}
	if m := c.String("auth-local"); m != "" && m != "scram-sha-256" && m != "md5" {
		// password (cleartext) is left out on purpose: scram-sha-256 is
		// the method to choose, md5 the one older clients may still need.
		return usageErr("--auth-local %q: want scram-sha-256 or md5", m)
	}
	if !c.Bool("smoke") {
		return nil
	}
	switch t := c.String("smoke-target"); t {
	case smoke.TargetAuto, smoke.TargetEmbedded, smoke.TargetCompose:
	default:
		return usageErr("--smoke-target %q: want auto, embedded or compose", t)
	}
	if d := c.Duration("smoke-duration"); d <= 0 {
		return usageErr("--smoke-duration %s: want a positive duration (e.g. 15s)", d)
	}
	if sharesStream(c, docOnStderr) {
		return usageErr("--smoke writes its report on stderr, where --format %s puts the document: add --output FILE for the document", c.String("format"))
	}
	return nil
}

// keepFindings drops the findings --ignore names, the config file drops
// (ignore, ignore-paths) and a suppression comment on their line or the
// line above names (`# uds-migrate ignore=UDS120`), and, with --quiet,
// everything below ERROR. inputs are the compose files as read (the
// comments are looked for there, else on disk).
func keepFindings(c *cli.Context, d *docRun, fs []rewrite.Finding, inputs []rewrite.Input) []rewrite.Finding {
	ignore := map[string]bool{}
	for _, code := range c.StringSlice("ignore") {
		ignore[strings.ToUpper(code)] = true
	}
	lines := fileLines(inputs)
	var out []rewrite.Finding
	for _, f := range fs {
		if ignore[f.Code] || (c.Bool("quiet") && f.Severity != rewrite.SevError) || d.cfg.ignores(f.Code, f.File) || suppressed(f, lines) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// failLevels rank --fail-on's levels by the severity they start at.
var failLevels = map[string]int{"error": 3, "warning": 2, "info": 1, "note": 1, "none": 0}

func severityRank(s string) int {
	switch s {
	case string(rewrite.SevError):
		return 3
	case string(rewrite.SevWarning):
		return 2
	}
	return 1
}

// failing counts the findings of p at or above --fail-on.
func failing(c *cli.Context, p *report.Plan) int {
	level := failLevels[strings.ToLower(c.String("fail-on"))]
	n := 0
	for _, f := range p.Findings {
		if level > 0 && severityRank(f.Severity) >= level {
			n++
		}
	}
	return n
}

// reportInput is what report needs of a migration's or a revert's result.
func reportInput(res *rewrite.Result) report.Input {
	in := report.Input{Changes: res.Changes, Findings: res.Findings, NothingReason: res.NothingReason}
	for _, f := range res.Files {
		in.Files = append(in.Files, report.File{Path: f.Path, Changed: f.Changed})
	}
	for _, d := range res.DBs {
		in.DBs = append(in.DBs, report.Database{Service: d.Service, Family: d.Family, Image: d.Image, SocketDir: d.SocketDir, Port: d.Port, Volume: d.Volume, Names: d.Names})
	}
	return in
}
