package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionFlag is the hidden flag urfave/cli's completion scripts append.
const completionFlag = "--generate-bash-completion"

// flagsAnywhere puts a command line in the order urfave/cli reads it:
// command names, then every flag, then the file arguments. urfave/cli
// (the standard library's flag package underneath) stops at the first
// argument that is not a flag, and a subcommand reads only the flags that
// follow its name: `uds-migrate -f a.yml plan` would plan the default
// file, `uds-migrate compose.yml -d` would take -d for a file. README
// promises flags "before or after, as in docker compose", so:
//   - a flag after a file argument moves in front of the files;
//   - a flag before a command's name moves after it when the command has
//     a flag of that name (`--format sarif plan` is `plan --format sarif`),
//     and is refused (an error, exit 2) when it has none: a flag the tool
//     accepts takes effect wherever it stands, or is refused, never
//     silently ignored;
//   - after "--" nothing moves; a flag that takes a value keeps it
//     ("-f -" reads standard input); -h/--help goes with the command it
//     follows, --version stays the top level's;
//   - one FILE argument beside -f files is one more -f file, where it
//     stands: `base.yml -f override.yml` loads base.yml first, as docker
//     compose loads -f files in command-line order (see asFileFlag).
func flagsAnywhere(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 || args[len(args)-1] == completionFlag {
		return args, nil
	}
	path := []string{args[0]}
	var early, flags, files []string // early: flags before the last command name
	fileAt := -1                     // len(flags) when the first file argument came
	dashdash := false
	levelFlags, commands := app.Flags, app.Commands
	leaf := (*cli.Command)(nil)
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i:]...)
			dashdash = true
			i = len(args)
		case isFlag(a):
			// A flag the level does not know moves too, alone, for
			// urfave/cli to refuse ("flag provided but not defined")
			// instead of reading it as a file argument.
			name := flagName(a)
			tokens := []string{a}
			if !strings.Contains(a, "=") && takesValue(levelFlags, name) && i+1 < len(args) {
				i++
				tokens = append(tokens, args[i])
			}
			flags = append(flags, tokens...)
		case len(files) == 0 && findCmd(commands, a) != nil:
			leaf = findCmd(commands, a)
			path = append(path, a)
			for _, f := range flags {
				if f == "-v" || f == "--version" {
					path = append(path[:1], append([]string{f}, path[1:]...)...)
					continue
				}
				early = append(early, f)
			}
			flags = nil
			levelFlags, commands = leaf.Flags, leaf.Subcommands
		default:
			if len(files) == 0 {
				fileAt = len(flags)
			}
			files = append(files, a)
		}
	}
	if spelling := fileFlag(append(slices.Clone(early), flags...)); !dashdash && len(files) == 1 && spelling != "" && knownFlag(levelFlags, "file") {
		// The same spelling as the user's: urfave/cli refuses -f and
		// --file together ("two forms of the same flag").
		flags = append(flags[:fileAt:fileAt], append([]string{spelling, files[0]}, flags[fileAt:]...)...)
		files = nil
	}
	if leaf != nil {
		if err := checkEarly(leaf, path, early); err != nil {
			return nil, err
		}
	}
	out := append(path, early...)
	out = append(out, flags...)
	for _, a := range out {
		if a == "-h" || a == "--help" {
			return out, nil // help for the command; the files do not matter
		}
	}
	return append(out, files...), nil
}

// checkEarly refuses a flag given before the command's name that the
// command has no flag of that name for.
func checkEarly(leaf *cli.Command, path, early []string) error {
	for _, a := range early {
		if !isFlag(a) {
			continue // a flag's value
		}
		name := flagName(a)
		if builtinFlag(name) || knownFlag(leaf.Flags, name) {
			continue
		}
		cmd := strings.Join(path[1:], " ")
		return fmt.Errorf("%s before %q: the %s command has no such flag, so it cannot take effect (see uds-migrate %s --help)", strings.SplitN(a, "=", 2)[0], cmd, cmd, cmd)
	}
	return nil
}

// fileFlag returns how tokens spell the -f/--file flag ("-f" or
// "--file"), or "" when they hold none. A token right after a flag
// without "=" that does not look like a flag is a value and skipped.
func fileFlag(tokens []string) string {
	for i := 0; i < len(tokens); i++ {
		if !isFlag(tokens[i]) {
			continue
		}
		switch flagName(tokens[i]) {
		case "f":
			return "-f"
		case "file":
			return "--file"
		}
		if !strings.Contains(tokens[i], "=") && i+1 < len(tokens) && !isFlag(tokens[i+1]) {
			i++
		}
	}
	return ""
}

// isFlag reports whether a command-line argument is a flag ("-" alone is
// standard input, a file argument).
func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' }

// flagName is a flag argument's name: "--format=json" → "format".
func flagName(a string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name
}

// builtinFlag names the flags urfave/cli adds itself (help, version).
func builtinFlag(name string) bool {
	switch name {
	case "h", "help", "v", "version":
		return true
	}
	return false
}

func findCmd(commands []*cli.Command, name string) *cli.Command {
	for _, c := range commands {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// knownFlag reports whether flags has one of this name or alias.
func knownFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// takesValue reports whether the flag of this name takes a value (every
// kind but a boolean).
func takesValue(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		if _, isBool := f.(*cli.BoolFlag); isBool {
			continue
		}
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
