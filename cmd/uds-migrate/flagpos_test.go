package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// leafCommands lists every command a command line can end at, with its
// name path ("bench http").
func leafCommands(cmds []*cli.Command, prefix []string) map[string]*cli.Command {
	out := map[string]*cli.Command{}
	for _, c := range cmds {
		path := append(slices.Clone(prefix), c.Name)
		out[strings.Join(path, " ")] = c
		for k, v := range leafCommands(c.Subcommands, path) {
			out[k] = v
		}
	}
	return out
}

// flagValue is a value of the flag's kind and the way to read it back.
func flagValue(f cli.Flag) (arg string, got func(c *cli.Context, name string) string, want string) {
	switch f.(type) {
	case *cli.BoolFlag:
		return "", func(c *cli.Context, n string) string { return fmt.Sprint(c.Bool(n)) }, "true"
	case *cli.IntFlag:
		return "7", func(c *cli.Context, n string) string { return fmt.Sprint(c.Int(n)) }, "7"
	case *cli.Int64Flag:
		return "7", func(c *cli.Context, n string) string { return fmt.Sprint(c.Int64(n)) }, "7"
	case *cli.DurationFlag:
		return "7s", func(c *cli.Context, n string) string { return c.Duration(n).String() }, (7 * time.Second).String()
	case *cli.StringSliceFlag:
		return "v7", func(c *cli.Context, n string) string { return strings.Join(c.StringSlice(n), ",") }, "v7"
	case *cli.StringFlag:
		return "v7", func(c *cli.Context, n string) string { return c.String(n) }, "v7"
	}
	panic(fmt.Sprintf("flagValue: no case for %T", f))
}

func lookupFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// TestFlagPositionMatrix runs every top-level flag (each of its names,
// --name value and --name=value) before and after every command, and after
// the command's argument. Where the command has a flag of that name, the
// command's action must see it set to the value given, in every position,
// with its argument intact; where it has none, the command line must be
// refused with exit 2 in every position and the action never run.
func TestFlagPositionMatrix(t *testing.T) {
	base := newApp(io.Discard, io.Discard)
	cases := 0
	for path, proto := range leafCommands(base.Commands, nil) {
		for _, gf := range base.Flags {
			for _, name := range gf.Names() {
				dash := "--"
				if len(name) == 1 {
					dash = "-"
				}
				arg, _, _ := flagValue(gf)
				spellings := [][]string{{dash + name}}
				if arg != "" {
					spellings = [][]string{{dash + name, arg}, {dash + name + "=" + arg}}
				}
				for _, flag := range spellings {
					positions := map[string][]string{
						"before":    append(append(slices.Clone(flag), strings.Fields(path)...), "ARG"),
						"after":     append(append(strings.Fields(path), flag...), "ARG"),
						"after-arg": append(append(strings.Fields(path), "ARG"), flag...),
					}
					for pos, cmdline := range positions {
						cases++
						checkFlagPosition(t, path, proto, gf, name, append([]string{"uds-migrate"}, cmdline...), pos)
					}
				}
			}
		}
	}
	if cases < 500 {
		t.Fatalf("only %d cases: the matrix lost commands or flags", cases)
	}
}

func checkFlagPosition(t *testing.T, path string, proto *cli.Command, gf cli.Flag, name string, args []string, pos string) {
	t.Helper()
	app := newApp(io.Discard, io.Discard)
	leaf := leafCommands(app.Commands, nil)[path]
	var seen, seenArgs string
	ran := false
	cf := lookupFlag(leaf.Flags, name)
	leaf.Action = func(c *cli.Context) error {
		ran = true
		if cf != nil {
			_, get, _ := flagValue(cf)
			seen = get(c, name)
		}
		seenArgs = strings.Join(c.Args().Slice(), " ")
		return nil
	}
	var stderr bytes.Buffer
	code := runApp(app, args, &stderr)
	if cf == nil {
		if code != exitError || ran {
			t.Errorf("%s (%s): %s is not a flag of %s, yet exit %d, action ran %v (stderr %q)", strings.Join(args, " "), pos, name, path, code, ran, stderr.String())
		}
		return
	}
	argVal, _, _ := flagValue(gf)
	_, _, want := flagValue(cf)
	if argVal != "" {
		if _, isBool := cf.(*cli.BoolFlag); isBool {
			t.Fatalf("%s: a value flag at the top level is a boolean in %s", name, path)
		}
		want = argVal
		if _, isDur := cf.(*cli.DurationFlag); isDur {
			want = (7 * time.Second).String()
		}
	}
	wantArgs := "ARG"
	if slices.Contains(cf.Names(), "file") {
		// One FILE beside -f files is one more -f file, in command-line
		// order (issue #21): compose loads -f files in the order given.
		wantArgs, want = "", "v7,ARG"
		if pos == "after-arg" {
			want = "ARG,v7"
		}
	}
	if code != exitOK || !ran || seen != want || seenArgs != wantArgs {
		t.Errorf("%s (%s): exit %d, action ran %v, %s = %q (want %q), args %q (want %q); stderr %q", strings.Join(args, " "), pos, code, ran, name, seen, want, seenArgs, wantArgs, stderr.String())
	}
}
