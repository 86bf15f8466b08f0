package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	composecli "github.com/compose-spec/compose-go/v2/cli"
	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// Several positional FILE arguments are several projects, each with its own
// project directory (the file's), as gofmt treats each file on its own: a
// CI step can check many projects in one run. A folder argument stands for
// every compose project under it (walkProjects), as `gofmt -l .` walks a
// tree. -f files (and COMPOSE_FILE) are one project, merged as docker
// compose merges them. With --changed the arguments are files a commit
// changes, and the projects are those under the working directory that
// own one (the pre-commit hook).

// composeProject is one project a command runs on: its compose files as
// read, and the options to load them with (the flags, plus what discovery
// found: env files named by COMPOSE_ENV_FILES, COMPOSE_PROFILES). err is
// set when the project cannot be read: it is reported, the others are
// still checked (eachProject).
type composeProject struct {
	inputs []rewrite.Input
	opts   rewrite.Options
	err    error
}

// projectFiles finds each project the command line names (see discover),
// and returns notes for people (several default names in a folder, a
// folder without projects).
func projectFiles(c *cli.Context) ([]discovered, []string, error) {
	args := c.Args().Slice()
	if c.Bool("changed") {
		return changedProjects(c, args)
	}
	var dirs []string
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			dirs = append(dirs, a)
		}
	}
	if len(args) <= 1 && len(dirs) == 0 {
		d, err := discover(append(c.StringSlice("file"), args...), c.String("project-directory"), c.StringSlice("env-file"))
		if err != nil {
			return nil, nil, err
		}
		return []discovered{d}, nil, nil
	}
	if len(c.StringSlice("file")) > 0 {
		return nil, nil, errors.New("give one project's files with -f (merged as docker compose merges them), or projects as FILE or folder arguments, not both")
	}
	var out []discovered
	for _, a := range args {
		if !slices.Contains(dirs, a) {
			out = append(out, discovered{files: []string{a}})
			continue
		}
		folders, err := walkProjects(a)
		if err != nil {
			return nil, nil, err
		}
		if len(folders) == 0 {
			// An error, not a note: `--check services/` that finds
			// nothing must not pass for a check that passed.
			return nil, nil, &rewrite.PosError{Pos: rewrite.Pos{File: a}, Msg: fmt.Sprintf("is a folder with no compose project in it or below (%s), want a compose file or a folder of projects", strings.Join(composecli.DefaultFileNames, ", "))}
		}
		for _, f := range folders {
			out = append(out, discovered{dir: f, walked: true})
		}
	}
	if len(out) > 1 {
		for _, flag := range []string{"project-directory", "env-file"} {
			if c.IsSet(flag) {
				return nil, nil, fmt.Errorf("--%s applies to one project, but the arguments name %d projects: run one project at a time, or use -f for files of one project", flag, len(out))
			}
		}
	}
	for i, d := range out {
		files := d.files
		got, err := discover(files, d.dir, c.StringSlice("env-file"))
		if err != nil {
			// One project that cannot be found is reported with the
			// others checked; its name is the argument.
			got = discovered{files: files, err: err}
			if len(files) == 0 {
				got.files = []string{d.dir}
			}
		}
		got.walked = d.walked
		out[i] = got
	}
	return out, nil, nil
}

// skipDirs are folders walkProjects does not enter: they hold other
// people's code, not the repository's projects.
var skipDirs = []string{"node_modules", "vendor"}

// walkProjects returns, in lexical order, every folder at or below dir
// that holds a file of a default compose name (compose-go's
// cli.DefaultFileNames, what docker compose would load run there),
// skipping hidden folders (.git, .github), skipDirs and symbolic links.
func walkProjects(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() {
			return nil
		}
		name := e.Name()
		if p != dir && (strings.HasPrefix(name, ".") || slices.Contains(skipDirs, name)) {
			return filepath.SkipDir
		}
		for _, n := range composecli.DefaultFileNames {
			if fi, err := os.Lstat(filepath.Join(p, n)); err == nil && !fi.IsDir() {
				out = append(out, p)
				break
			}
		}
		return nil
	})
	return out, err
}

// changedProjects is --changed (the pre-commit hook): the arguments are
// files a commit changes; the projects are those under the working
// directory (walkProjects) that own one of them. A project owns the files
// in its folder that no deeper project's folder holds (a file belongs to
// its nearest project), and the files its compose files name elsewhere
// (env_file, include, extends: the .env and config files around a
// project are in its folder). No compose file at the repository root is
// needed; no project owning a changed file is nothing to do.
func changedProjects(c *cli.Context, changed []string) ([]discovered, []string, error) {
	if len(c.StringSlice("file")) > 0 || c.IsSet("project-directory") {
		return nil, nil, errors.New("--changed finds the projects itself: give the changed files as arguments, without -f or --project-directory")
	}
	folders, err := walkProjects(".")
	if err != nil {
		return nil, nil, err
	}
	var absFolders []string
	for _, f := range folders {
		abs, _ := filepath.Abs(f)
		absFolders = append(absFolders, abs)
	}
	owner := func(file string) string { // the nearest project folder holding file
		best := ""
		for _, f := range absFolders {
			if within(file, f) && len(f) > len(best) {
				best = f
			}
		}
		return best
	}
	var changedAbs []string
	for _, f := range changed {
		if abs, err := filepath.Abs(f); err == nil {
			changedAbs = append(changedAbs, abs)
		}
	}
	var out []discovered
	for i, folder := range folders {
		d, err := discover(nil, folder, c.StringSlice("env-file"))
		if err != nil {
			out = append(out, discovered{files: []string{folder}, err: err})
			continue
		}
		owned := func(file string) bool {
			if owner(file) == absFolders[i] {
				return true
			}
			for _, ref := range projectRefs(d.files) {
				if ref == file {
					return true
				}
			}
			return false
		}
		if slices.ContainsFunc(changedAbs, owned) {
			d.walked = true
			out = append(out, d)
		}
	}
	return out, nil, nil
}

// within reports whether file is dir or below it.
func within(file, dir string) bool {
	rel, err := filepath.Rel(dir, file)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// projectRefs are the absolute paths of the compose files and of the
// files they name (compose.FileRefs); references with ${...} are left out.
func projectRefs(files []string) []string {
	var out []string
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			continue
		}
		out = append(out, abs)
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		refs, _ := compose.FileRefs(compose.Input{Path: f, Data: data})
		for _, r := range refs {
			if strings.Contains(r, "$") {
				continue
			}
			if !filepath.IsAbs(r) {
				r = filepath.Join(filepath.Dir(abs), r)
			}
			out = append(out, filepath.Clean(r))
		}
	}
	return out
}

// readProjects reads every project (see projectFiles); withOutput also
// checks the output flags. Discovery's notes go to d. A project that
// cannot be read carries its error (composeProject.err); other errors are
// *codeError with exit status 2.
func readProjects(c *cli.Context, withOutput bool, d *docRun) ([]*composeProject, error) {
	found, notes, err := projectFiles(c)
	if err != nil {
		return nil, failInput(err)
	}
	if c.Bool("quiet") {
		notes = nil
	}
	for _, n := range notes {
		d.note("%s", n)
	}
	if withOutput && btoi(c.Bool("write"))+btoi(c.Bool("diff"))+btoi(c.Bool("check")) > 1 {
		return nil, &codeError{exitError, errors.New("--write, --diff and --check exclude each other")}
	}
	if withOutput && len(found) > 1 && !c.Bool("write") && !c.Bool("diff") && !c.Bool("check") {
		return nil, &codeError{exitError, fmt.Errorf("the arguments name %d projects, and stdout holds one file: use -w to write them, -d to see a diff or --check to list the files that would change", len(found))}
	}
	var out []*composeProject
	for _, disc := range found {
		if withOutput && usesStdin(disc.files) && (c.Bool("write") || c.Bool("diff")) {
			return nil, &codeError{exitError, errors.New("-f -: standard input cannot be written back or diffed; print the result (no -w/-d) or name the file")}
		}
		if disc.note != "" && !c.Bool("quiet") {
			d.note("%s", disc.note)
		}
		opts := options(c)
		if len(opts.EnvFiles) == 0 {
			opts.EnvFiles = disc.envFiles
		}
		if len(opts.Profiles) == 0 {
			opts.Profiles = disc.profiles
		}
		opts.ManyProjects = len(found) > 1 || disc.walked
		p := &composeProject{opts: opts, err: disc.err}
		if p.err == nil {
			p.inputs, p.err = readInputs(disc.files, stdin)
			d.inputs = append(d.inputs, p.inputs...)
		}
		if p.err != nil && len(found) == 1 {
			return nil, failInput(p.err)
		}
		out = append(out, p)
	}
	return out, nil
}

// readProject reads the one project a command takes (see readProjects).
func readProject(c *cli.Context, withOutput bool, d *docRun) (*composeProject, error) {
	projects, err := readProjects(c, withOutput, d)
	if err != nil {
		return nil, err
	}
	if len(projects) != 1 {
		return nil, usageErr("%s takes one project, got %d (each FILE or folder argument is a project of its own; use -f for several files of one project)", c.Command.Name, len(projects))
	}
	return projects[0], nil
}

// projectRun is a project and what a command made of it.
type projectRun struct {
	*composeProject
	res *rewrite.Result
}

// eachProject runs do on every project, as gofmt runs on every file: a
// project that cannot be read or loaded is reported, the others are still
// checked and delivered. failed is the error that ends the run with exit
// status 2 once they are (nil when none failed): errors.Join of each
// failure (one finding each in a machine format, one line each in text).
func eachProject(projects []*composeProject, do func(*composeProject) (*rewrite.Result, error)) (ok []projectRun, failed error) {
	var errs []error
	for _, p := range projects {
		err := p.err
		var res *rewrite.Result
		if err == nil {
			res, err = do(p)
		}
		if err != nil {
			errs = append(errs, inputError{err})
			continue
		}
		ok = append(ok, projectRun{p, res})
	}
	if len(errs) > 0 {
		failed = &codeError{exitError, errors.Join(errs...)}
	}
	return ok, failed
}

// results are the results of runs, in order.
func results(runs []projectRun) []*rewrite.Result {
	var out []*rewrite.Result
	for _, r := range runs {
		out = append(out, r.res)
	}
	return out
}

// afterFailures is what a run that delivered the projects it could ends
// with: the delivery's own exit 2 first (both errors), then the failed
// projects' exit 2, then the delivery's status (exit 1: changes pending).
func afterFailures(delivered, failed error) error {
	switch {
	case failed == nil:
		return delivered
	case failedHard(delivered):
		return &codeError{exitError, errors.Join(errMessage(delivered), errMessage(failed))}
	}
	return failed
}

// migrateProjects migrates every project the command line names.
func migrateProjects(projects []*composeProject) ([]projectRun, error) {
	return eachProject(projects, func(p *composeProject) (*rewrite.Result, error) {
		return rewrite.Migrate(context.Background(), p.inputs, p.opts)
	})
}
