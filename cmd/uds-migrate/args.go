package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// completionFlag is the hidden flag urfave/cli's completion scripts append.
const completionFlag = "--generate-bash-completion"

// interspersed moves the flags of a command line in front of its file
// arguments, so that `uds-migrate compose.yml -d` means what
// `docker compose ... -f compose.yml config -q` users expect: urfave/cli
// (the standard library's flag package underneath) stops at the first
// argument that is not a flag. Flags before a subcommand's name stay there
// (they are the top level's); after "--" nothing moves; a flag that takes
// a value keeps it ("-f -" reads standard input).
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 || args[len(args)-1] == completionFlag {
		return args
	}
	flags := app.Flags
	start := 1
	if i, cmd := findCommand(app, args); cmd != nil {
		if len(cmd.Subcommands) > 0 {
			return args // bench http: takes no files
		}
		flags, start = cmd.Flags, i+1
	}
	takesValue := valueFlags(flags)
	out := append([]string{}, args[:start]...)
	var files []string
	for i := start; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			out = append(out, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		default:
			files = append(files, a)
		}
	}
	for _, a := range out[start:] {
		if a == "-h" || a == "--help" {
			return out // help for the command; the files do not matter
		}
	}
	return append(out, files...)
}

// findCommand returns the subcommand args name and its index: the first
// argument that is not a top-level flag (or its value), when it names a
// command.
func findCommand(app *cli.App, args []string) (int, *cli.Command) {
	takesValue := valueFlags(app.Flags)
	for i := 1; i < len(args); i++ {
		a := args[i]
		if len(a) > 1 && a[0] == '-' {
			if name := strings.TrimLeft(a, "-"); !strings.Contains(name, "=") && takesValue[name] {
				i++
			}
			continue
		}
		for _, c := range app.Commands {
			if c.HasName(a) {
				return i, c
			}
		}
		return 0, nil
	}
	return 0, nil
}

// valueFlags names (and aliases) the flags that take a value.
func valueFlags(flags []cli.Flag) map[string]bool {
	out := map[string]bool{}
	for _, f := range flags {
		if _, isBool := f.(*cli.BoolFlag); isBool {
			continue
		}
		for _, n := range f.Names() {
			out[n] = true
		}
	}
	return out
}
