package main

import (
	"context"
	"errors"
	"fmt"
	"io"

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

// eachProject runs do on every project. When any fails, its error is
// printed and nothing is delivered for the others either (exit 2, nothing
// on stdout, no file written).
func eachProject(projects [][]rewrite.Input, stderr io.Writer, do func([]rewrite.Input) (*rewrite.Result, error)) ([]*rewrite.Result, error) {
	var out []*rewrite.Result
	var failed []error
	for _, in := range projects {
		res, err := do(in)
		if err != nil {
			failed = append(failed, err)
			continue
		}
		out = append(out, res)
	}
	switch {
	case len(failed) == 0:
		return out, nil
	case len(projects) == 1:
		return nil, failInput(failed[0])
	}
	for _, err := range failed {
		fmt.Fprintln(stderr, "uds-migrate: "+err.Error())
	}
	return nil, &codeError{exitError, nil}
}

// emitProjects delivers the results of several projects as one: findings of
// each, "nothing to do" per project, and the changed files of all of them
// in one diff, one --check list or one all-or-none write.
func emitProjects(c *cli.Context, results []*rewrite.Result, verb string, stdout, stderr io.Writer) error {
	if len(results) == 1 {
		return emit(c, results[0], verb, stdout, stderr)
	}
	all := &rewrite.Result{}
	for _, res := range results {
		all.Files = append(all.Files, res.Files...)
		all.Findings = append(all.Findings, res.Findings...)
		all.Changes = append(all.Changes, res.Changes...)
	}
	if err := emitFindings(c, all, verb, stderr); err != nil {
		return err
	}
	scope := false
	for _, res := range results {
		if res.NothingReason != "" && !c.Bool("quiet") {
			fmt.Fprintf(stderr, "uds-migrate: %s: nothing to %s: %s\n", res.Files[0].Path, verb, res.NothingReason)
			scope = scope || verb == "revert"
		}
	}
	if scope {
		fmt.Fprintln(stderr, revertScope)
	}
	return deliver(c, all, verb, stdout, stderr)
}

// migrateProjects migrates every project the command line names.
func migrateProjects(c *cli.Context, projects [][]rewrite.Input, stderr io.Writer) ([]*rewrite.Result, error) {
	return eachProject(projects, stderr, func(in []rewrite.Input) (*rewrite.Result, error) {
		o := options(c)
		o.ManyProjects = len(projects) > 1
		return rewrite.Migrate(context.Background(), in, o)
	})
}
