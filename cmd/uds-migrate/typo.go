package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
)

// unknownCommand tells a mistyped command from a compose file: a positional
// argument is a file, unless no file of that name exists and it does not
// look like one (no directory part, no .yml/.yaml/.json extension). Then it
// answers like git and docker do: "unknown command", with the closest
// command. nil when every argument may be a file.
func unknownCommand(c *cli.Context) error {
	for _, a := range c.Args().Slice() {
		if a == "-" || strings.ContainsAny(a, `/\`) || filepath.Ext(a) != "" {
			continue
		}
		if _, err := os.Lstat(a); err == nil {
			continue
		}
		var names []string
		for _, cmd := range c.App.VisibleCommands() {
			names = append(names, cmd.Name)
		}
		msg := fmt.Sprintf("unknown command %q, and no compose file of that name", a)
		if best := closest(a, names); best != "" {
			return fmt.Errorf("%s: did you mean %s? (uds-migrate %s --help)", msg, best, best)
		}
		return fmt.Errorf("%s; commands: %s (uds-migrate --help)", msg, strings.Join(names, ", "))
	}
	return nil
}

// closest returns the name within edit distance 2 of s (transpositions
// count once), or "".
func closest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := distance(strings.ToLower(s), n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the optimal string alignment distance (Levenshtein plus
// adjacent transpositions: "plna" is one step from "plan").
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
