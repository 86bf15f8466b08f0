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

// composeProject is one project a command runs on: its compose files as
// read, and the options to load them with (the flags, plus what discovery
// found: env files named by COMPOSE_ENV_FILES, COMPOSE_PROFILES).
type composeProject struct {
	inputs []rewrite.Input
	opts   rewrite.Options
}

// projectFiles finds each project the command line names (see discover).
func projectFiles(c *cli.Context) ([]discovered, error) {
	args := c.Args().Slice()
	if len(args) <= 1 {
		d, err := discover(append(c.StringSlice("file"), args...), c.String("project-directory"), c.StringSlice("env-file"))
		if err != nil {
			return nil, err
		}
		return []discovered{d}, nil
	}
	if len(c.StringSlice("file")) > 0 {
		return nil, errors.New("give one project's files with -f (merged as docker compose merges them), or several projects as FILE arguments, not both")
	}
	for _, flag := range []string{"project-directory", "env-file"} {
		if c.IsSet(flag) {
			return nil, fmt.Errorf("--%s applies to one project, but %d FILE arguments are %d projects: run one project at a time, or use -f for files of one project", flag, len(args), len(args))
		}
	}
	var out []discovered
	for _, a := range args {
		d, err := discover([]string{a}, "", nil)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// readProjects reads every project (see projectFiles); withOutput also
// checks the output flags. Discovery's notes go to d. Errors are
// *codeError with exit status 2.
func readProjects(c *cli.Context, withOutput bool, d *docRun) ([]*composeProject, error) {
	found, err := projectFiles(c)
	if err != nil {
		return nil, failInput(err)
	}
	if withOutput && btoi(c.Bool("write"))+btoi(c.Bool("diff"))+btoi(c.Bool("check")) > 1 {
		return nil, &codeError{exitError, errors.New("--write, --diff and --check exclude each other")}
	}
	if withOutput && len(found) > 1 && !c.Bool("write") && !c.Bool("diff") && !c.Bool("check") {
		return nil, &codeError{exitError, fmt.Errorf("%d FILE arguments are %d projects, and stdout holds one file: use -w to write them, -d to see a diff or --check to list the files that would change", len(found), len(found))}
	}
	var out []*composeProject
	for _, disc := range found {
		if withOutput && usesStdin(disc.files) && (c.Bool("write") || c.Bool("diff")) {
			return nil, &codeError{exitError, errors.New("-f -: standard input cannot be written back or diffed; print the result (no -w/-d) or name the file")}
		}
		if disc.note != "" && !c.Bool("quiet") {
			d.note("%s", disc.note)
		}
		inputs, err := readInputs(disc.files, stdin)
		if err != nil {
			return nil, failInput(err)
		}
		opts := options(c)
		if len(opts.EnvFiles) == 0 {
			opts.EnvFiles = disc.envFiles
		}
		if len(opts.Profiles) == 0 {
			opts.Profiles = disc.profiles
		}
		opts.ManyProjects = len(found) > 1
		out = append(out, &composeProject{inputs: inputs, opts: opts})
	}
	return out, nil
}

// readProject reads the one project a command takes (see readProjects).
func readProject(c *cli.Context, withOutput bool, d *docRun) (*composeProject, error) {
	projects, err := readProjects(c, withOutput, d)
	if err != nil {
		return nil, err
	}
	if len(projects) > 1 {
		return nil, usageErr("%s takes one project, got %d FILE arguments (each is a project of its own; use -f for several files of one project)", c.Command.Name, len(projects))
	}
	return projects[0], nil
}

// eachProject runs do on every project. When any fails, nothing is
// delivered for the others either (exit 2, nothing on stdout, no file
// written), and the error names each failure: errors.Join of them (one
// finding each in a machine format, one line each in text).
func eachProject(projects []*composeProject, do func(*composeProject) (*rewrite.Result, error)) ([]*rewrite.Result, error) {
	var out []*rewrite.Result
	var failed []error
	for _, p := range projects {
		res, err := do(p)
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
func migrateProjects(projects []*composeProject) ([]*rewrite.Result, error) {
	return eachProject(projects, func(p *composeProject) (*rewrite.Result, error) {
		return rewrite.Migrate(context.Background(), p.inputs, p.opts)
	})
}
