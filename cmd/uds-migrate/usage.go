package main

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// badValueRE matches the flag package's message for a value it cannot
// parse: `invalid value "1" for flag -duration: parse error`.
var badValueRE = regexp.MustCompile(`^invalid value "(.*)" for flag -(\S+): `)

// onUsageError answers a command line mistake in one line, exit 2, instead
// of urfave/cli's whole help on stdout (a subcommand does not inherit the
// app's handler). A duration without a unit says which unit to add.
func onUsageError(helpCmd string) cli.OnUsageErrorFunc {
	return func(_ *cli.Context, err error, _ bool) error {
		if m := badValueRE.FindStringSubmatch(err.Error()); m != nil {
			if _, derr := time.ParseDuration(m[1] + "s"); derr == nil && !strings.ContainsAny(m[1], "hmsuµn") {
				return &codeError{exitError, fmt.Errorf("--%s %s has no unit; use %ss (or ms, m)", m[2], m[1], m[1])}
			}
			return &codeError{exitError, fmt.Errorf("--%s %q: not a valid value (see %s --help)", m[2], m[1], helpCmd)}
		}
		return &codeError{exitError, fmt.Errorf("%w (see %s --help)", err, helpCmd)}
	}
}
