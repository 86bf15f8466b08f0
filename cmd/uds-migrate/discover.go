package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/consts"

	"github.com/uds-migrate/uds-migrate/compose"
)

// discovered is the project docker compose would load for a command line:
// its files in load order, and what its interpolation setup adds to the
// flags.
type discovered struct {
	// files are the compose files, in load order: -f as given, else
	// COMPOSE_FILE, else the default names found in the project directory
	// (or the working directory) or the nearest parent that has one, with
	// the override file beside it. Paths compose-go made absolute are
	// relative to the working directory again, for messages and diffs.
	files []string
	// envFiles are the interpolation env files named explicitly:
	// --env-file, else COMPOSE_ENV_FILES (comma-separated). nil: the
	// project directory's .env, which the loader reads itself.
	envFiles []string
	// profiles is COMPOSE_PROFILES of the environment compose builds (the
	// process's, then the env files'), for when --profile is not given.
	profiles []string
	// note is for people: several files with default names in one
	// folder, and which one counts (docker compose warns the same way).
	note string
	// dir is the folder a folder argument found the project in (the
	// project directory to discover from); err why it cannot be found.
	dir string
	err error
	// walked: found by walking a folder (a folder argument, --changed),
	// so flags that name services (--consumer KEY=...) are checked for
	// syntax only, as for several projects.
	walked bool
}

// discover finds a project's files with compose-go's own discovery
// (cli.ProjectOptions), the option sequence of docker compose v2.40's
// ProjectOptions.toProjectOptions (cmd/compose/compose.go): working
// directory, OS environment, env files (read before COMPOSE_FILE, which an
// env file may set, and again once the project directory is known),
// COMPOSE_FILE, then default file discovery with its parent walk. files
// are the -f files, projectDir --project-directory, envFlags --env-file.
func discover(files []string, projectDir string, envFlags []string) (discovered, error) {
	envFiles := envFlags
	if len(envFiles) == 0 {
		// docker compose reads COMPOSE_ENV_FILES as --env-file's default
		// (defaultStringArrayVar: split on commas, empty entries dropped).
		envFiles = strings.FieldsFunc(os.Getenv("COMPOSE_ENV_FILES"), func(r rune) bool { return r == ',' })
	}
	// compose-go reads the env files whole: a named pipe or /dev/zero
	// there would hang discovery (issue 25). Such a file is left to the
	// loader, which refuses it with its name.
	var o *cli.ProjectOptions
	err := unsafeEnvFile(files, projectDir, envFiles)
	if err == nil {
		o, err = cli.NewProjectOptions(files,
			cli.WithWorkingDirectory(projectDir),
			cli.WithOsEnv,
			cli.WithEnvFiles(envFiles...),
			cli.WithDotEnv,
			cli.WithConfigFileEnv,
			cli.WithDefaultConfigPath,
			cli.WithEnvFiles(envFiles...),
			cli.WithDotEnv,
		)
	}
	if err != nil {
		// An env file compose-go cannot read or parse: the loader reports
		// it later with its position and without its values (compose-go's
		// message may quote a line). Find the files without the env files.
		var err2 error
		o, err2 = cli.NewProjectOptions(files, cli.WithWorkingDirectory(projectDir), cli.WithOsEnv, cli.WithConfigFileEnv, cli.WithDefaultConfigPath)
		if err2 != nil {
			return discovered{}, err2
		}
	}
	if len(o.ConfigPaths) == 0 {
		where := "the working directory"
		if projectDir != "" {
			where = projectDir
		}
		return discovered{}, fmt.Errorf("no compose file given and none found in %s or a folder above it (%s; COMPOSE_FILE names others)", where, strings.Join(cli.DefaultFileNames, ", "))
	}
	d := discovered{envFiles: envFiles}
	if len(envFlags) == 0 && len(envFiles) == 0 {
		d.envFiles = nil
	}
	for _, p := range strings.Split(o.Environment[consts.ComposeProfiles], ",") {
		if p = strings.TrimSpace(p); p != "" {
			d.profiles = append(d.profiles, p)
		}
	}
	// compose-go makes the paths it finds absolute; the user's own
	// spelling (-f, an absolute COMPOSE_FILE entry) stays as given.
	var given []string
	if env := o.Environment[consts.ComposeFilePath]; len(files) == 0 && env != "" {
		sep := o.Environment[consts.ComposePathSeparator]
		if sep == "" {
			sep = string(os.PathListSeparator)
		}
		given = strings.Split(env, sep)
	}
	wd, _ := os.Getwd()
	for i, f := range o.ConfigPaths {
		if len(files) == 0 && filepath.IsAbs(f) && (i >= len(given) || !filepath.IsAbs(given[i])) && wd != "" {
			if rel, err := filepath.Rel(wd, f); err == nil {
				f = rel
			}
		}
		d.files = append(d.files, f)
	}
	if len(files) == 0 && o.Environment[consts.ComposeFilePath] == "" {
		d.note = severalDefaults(filepath.Dir(o.ConfigPaths[0]), d.files[0])
	}
	return d, nil
}

// unsafeEnvFile returns an error for the first env file discovery would
// read that is not a regular file of at most compose.MaxFileSize: the
// --env-file files, the .env of the working directory (projectDir, else
// the current one) and of the folder the compose files are found in.
func unsafeEnvFile(files []string, projectDir string, envFiles []string) error {
	wd := projectDir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	candidates := []string{filepath.Join(wd, ".env")}
	for _, f := range envFiles {
		if !filepath.IsAbs(f) {
			f = filepath.Join(wd, f)
		}
		candidates = append(candidates, f)
	}
	if o, err := cli.NewProjectOptions(files, cli.WithWorkingDirectory(projectDir), cli.WithOsEnv, cli.WithConfigFileEnv, cli.WithDefaultConfigPath); err == nil && len(o.ConfigPaths) > 0 {
		candidates = append(candidates, filepath.Join(filepath.Dir(o.ConfigPaths[0]), ".env"))
	}
	for _, f := range candidates {
		if err := compose.CheckRegular(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s %v", f, err)
		}
	}
	return nil
}

// severalDefaults names the files of dir with a default compose name when
// there is more than one: docker compose takes the first of
// cli.DefaultFileNames and warns; so does this tool.
func severalDefaults(dir, using string) string {
	var found []string
	for _, n := range cli.DefaultFileNames {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			found = append(found, n)
		}
	}
	if len(found) < 2 {
		return ""
	}
	return fmt.Sprintf("several compose files with default names in %s (%s): using %s, as docker compose does", displayDir(dir), strings.Join(found, ", "), using)
}

// displayDir is dir relative to the working directory when it can be.
func displayDir(dir string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, dir); err == nil {
			return rel
		}
	}
	return dir
}
