package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

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
				for _, code := range rewrite.Codes() {
					fmt.Fprintf(&b, "%s  %s\n", code.ID, code.Title)
				}
				_, err := io.WriteString(stdout, b.String())
				return err
			}
			var b strings.Builder
			for i, arg := range c.Args().Slice() {
				code, ok := rewrite.LookupCode(arg)
				if !ok {
					return &codeError{exitError, fmt.Errorf("no such finding code %s (uds-migrate explain lists them)", strings.ToUpper(arg))}
				}
				if i > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "%s: %s\n\n%s\n\nSee %s\n", code.ID, code.Title, code.Doc, code.HelpURI())
			}
			_, err := io.WriteString(stdout, b.String())
			return err
		},
	}
}
