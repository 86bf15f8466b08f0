package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/docs"
	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

func explainCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "explain",
		Usage:     "print the cause and fix of a finding code (docs/findings.md)",
		UsageText: "uds-migrate explain CODE...\nuds-migrate explain          (lists every code)",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				var b strings.Builder
				for _, code := range append([]string{report.InputErrorCode}, rewrite.Codes()...) {
					fmt.Fprintf(&b, "%s  %s\n", code, report.Title(code))
				}
				_, err := io.WriteString(stdout, b.String())
				return err
			}
			var b strings.Builder
			for i, code := range c.Args().Slice() {
				code = strings.ToUpper(code)
				text, ok := docs.Finding(code)
				if !ok {
					return &codeError{exitError, fmt.Errorf("no such finding code %s (uds-migrate explain lists them)", code)}
				}
				if i > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "%s: %s\n\n%s\n\nSee %s\n", code, report.Title(code), text, docs.HelpURI(code))
			}
			_, err := io.WriteString(stdout, b.String())
			return err
		},
	}
}
