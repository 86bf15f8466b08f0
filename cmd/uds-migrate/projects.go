package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/rewrite"
)

// Several positional FILE arguments are several projects, each with its own
// project directory (the file's), as gofmt treats each file on its own: a
// CI step can check many projects in one run. -f files (and COMPOSE_FILE)
// are one project, merged as docker compose merges them.

// projectFiles returns the files of each project the command line names.
func projectFiles(c *cli.Context) ([][]string, error) {
	args := c.Args().Slice()
	if len(args) <= 1 {
		files, err := composeFiles(c)
		if err != nil {
			return nil, err
		}
		return [][]string{files}, nil
	}
	if len(c.StringSlice("file")) > 0 {
		return nil, errors.New("give one project's files with -f (merged as docker compose merges them), or several projects as FILE arguments, not both")
	}
	for _, flag := range []string{"project-directory", "env-file"} {
		if c.IsSet(flag) {
			return nil, fmt.Errorf("--%s applies to one project, but %d FILE arguments are %d projects: run one project at a time, or use -f for files of one project", flag, len(args), len(args))
		}
	}
	var out [][]string
	for _, a := range args {
		out = append(out, []string{a})
	}
	return out, nil
}

// readProjects reads every project (see projectFiles); withOutput also
// checks the output flags. Errors are *codeError with exit status 2.
func readProjects(c *cli.Context, withOutput bool) ([][]rewrite.Input, error) {
	projects, err := projectFiles(c)
	if err != nil {
		return nil, failInput(err)
	}
	if withOutput && btoi(c.Bool("write"))+btoi(c.Bool("diff"))+btoi(c.Bool("check")) > 1 {
		return nil, &codeError{exitError, errors.New("--write, --diff and --check exclude each other")}
	}
	if withOutput && len(projects) > 1 && !c.Bool("write") && !c.Bool("diff") && !c.Bool("check") {
		return nil, &codeError{exitError, fmt.Errorf("%d FILE arguments are %d projects, and stdout holds one file: use -w to write them, -d to see a diff or --check to list the files that would change", len(projects), len(projects))}
	}
	var out [][]rewrite.Input
	for _, files := range projects {
		if withOutput && usesStdin(files) && (c.Bool("write") || c.Bool("diff")) {
			return nil, &codeError{exitError, errors.New("-f -: standard input cannot be written back or diffed; print the result (no -w/-d) or name the file")}
		}
		inputs, err := readInputs(files, stdin)
		if err != nil {
			return nil, failInput(err)
		}
		out = append(out, inputs)
	}
	return out, nil
}

// eachProject runs do on every project. When any fails, nothing is
// delivered for the others either (exit 2, nothing on stdout, no file
// written), and the error names each failure: one error for one project,
// errors.Join of them for several (one finding each in a machine format,
// one line each in text).
func eachProject(projects [][]rewrite.Input, do func([]rewrite.Input) (*rewrite.Result, error)) ([]*rewrite.Result, error) {
	var out []*rewrite.Result
	var failed []error
	for _, in := range projects {
		res, err := do(in)
		if err != nil {
			failed = append(failed, inputError{err})
			continue
		}
		out = append(out, res)
	}
	if len(failed) > 0 {
		return nil, &codeError{exitError, errors.Join(failed...)}
	}
	return out, nil
}

// migrateProjects migrates every project the command line names.
func migrateProjects(c *cli.Context, projects [][]rewrite.Input) ([]*rewrite.Result, error) {
	return eachProject(projects, func(in []rewrite.Input) (*rewrite.Result, error) {
		o := options(c)
		o.ManyProjects = len(projects) > 1
		return rewrite.Migrate(context.Background(), in, o)
	})
}
