package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/uds-migrate/uds-migrate/rewrite"
)

// stdinName is how findings and errors name a compose file read from
// standard input (`-f -`, as docker compose takes it). Relative paths in it
// resolve against the working directory (or --project-directory).
const stdinName = "-"

// stdin is where `-f -` reads from (a variable for tests).
var stdin io.Reader = os.Stdin

// readInputs is rewrite.ReadInputs with "-" read from standard input (at
// most once, at most rewrite.MaxFileSize bytes).
func readInputs(files []string, stdin io.Reader) ([]rewrite.Input, error) {
	var out []rewrite.Input
	seen := false
	for _, f := range files {
		if f != stdinName {
			in, err := rewrite.ReadInputs([]string{f})
			if err != nil {
				return nil, err
			}
			out = append(out, in...)
			continue
		}
		if seen {
			return nil, errors.New("-f - given twice: standard input holds one compose file")
		}
		seen = true
		data, err := io.ReadAll(io.LimitReader(stdin, rewrite.MaxFileSize+1))
		if err != nil {
			return nil, &rewrite.PosError{Pos: rewrite.Pos{File: stdinName}, Msg: "cannot read standard input: " + err.Error()}
		}
		if len(data) > rewrite.MaxFileSize {
			return nil, &rewrite.PosError{Pos: rewrite.Pos{File: stdinName}, Msg: fmt.Sprintf("standard input is larger than %d MiB: not a compose file", rewrite.MaxFileSize>>20)}
		}
		out = append(out, rewrite.Input{Path: stdinName, Data: data})
	}
	return out, nil
}

// usesStdin reports whether a compose file comes from standard input.
func usesStdin(files []string) bool {
	for _, f := range files {
		if f == stdinName {
			return true
		}
	}
	return false
}
