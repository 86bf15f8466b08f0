package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/internal/atomicfile"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

func migrateFlags() []cli.Flag {
	return append(append(projectFlags(), outputFlags()...), smokeFlags()...)
}

// outputFlags choose how a result is delivered.
func outputFlags() []cli.Flag {
	return append([]cli.Flag{},
		&cli.BoolFlag{Name: "write", Aliases: []string{"w"}, Usage: "rewrite the files in place (atomically, all or none)"},
		&cli.BoolFlag{Name: "diff", Aliases: []string{"d"}, Usage: "print a unified diff (git apply accepts it); exit 1 when there are changes"},
		&cli.BoolFlag{Name: "check", Usage: "print the files that would change; exit 1 when any would"},
	)
}

// projectFlags are the flags every command that reads a project takes.
func projectFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "file", Aliases: []string{"f"}, Usage: "compose file (repeatable; default: COMPOSE_FILE, then compose.yaml, compose.yml, docker-compose.yaml, docker-compose.yml)"},
		&cli.StringFlag{Name: "project-directory", Usage: "compose's project directory (default: the first file's directory)"},
		&cli.StringSliceFlag{Name: "env-file", Usage: "compose's interpolation env file (repeatable; default PROJECT_DIR/.env)"},
		&cli.StringSliceFlag{Name: "profile", Usage: "only services of these profiles (repeatable; default COMPOSE_PROFILES, else every service)"},
		&cli.StringSliceFlag{Name: "db", Usage: "treat SERVICE as a PostgreSQL server (repeatable; official, PostGIS, TimescaleDB and Bitnami images are found without it)"},
		&cli.StringFlag{Name: "volume", Usage: "name of the socket volume (default <db-service>-socket)"},
		&cli.StringFlag{Name: "mount-path", Value: "/var/run/postgresql", Usage: "where client services mount the socket volume (read-only)"},
		&cli.StringFlag{Name: "socket-dir", Usage: "socket directory inside the database container, for images the tool does not know"},
		&cli.StringFlag{Name: "bind-mount", Usage: "use this host folder as the socket directory instead of a named volume (warned: root-owned, not on macOS Docker Desktop)"},
		&cli.StringFlag{Name: "auth-local", Usage: "add POSTGRES_INITDB_ARGS=--auth-local=METHOD (scram-sha-256, md5) so socket logins need a password (new data directories only)"},
		&cli.StringFlag{Name: "jdbc-factory", Value: "factoryarg", Usage: "junixsocket factory for JDBC URLs: factoryarg (socketFactoryArg=FILE), uri (file:// host) or sysprop (JAVA_TOOL_OPTIONS)"},
		&cli.StringSliceFlag{Name: "only", Usage: "migrate only these client services (repeatable)"},
		&cli.StringSliceFlag{Name: "exclude", Usage: "leave these client services on TCP (repeatable)"},
		&cli.BoolFlag{Name: "drop-tcp", Usage: "app servers behind nginx listen on the socket instead of their TCP port (default: both)"},
	}
}

// composeFiles resolves which files to read, the way docker compose does.
func composeFiles(c *cli.Context) ([]string, error) {
	files := append(c.StringSlice("file"), c.Args().Slice()...)
	if len(files) > 0 {
		return files, nil
	}
	if env := os.Getenv("COMPOSE_FILE"); env != "" {
		sep := os.Getenv("COMPOSE_PATH_SEPARATOR")
		if sep == "" {
			sep = string(os.PathListSeparator)
		}
		return strings.Split(env, sep), nil
	}
	for _, name := range []string{"compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"} {
		if _, err := os.Stat(name); err == nil {
			// docker compose also loads the matching override file when no
			// -f is given; so must the migration, or the app stays on TCP.
			ext := filepath.Ext(name)
			base := strings.TrimSuffix(name, ext)
			for _, o := range []string{base + ".override.yaml", base + ".override.yml"} {
				if _, err := os.Stat(o); err == nil {
					return []string{name, o}, nil
				}
			}
			return []string{name}, nil
		}
	}
	return nil, errors.New("no compose file given and none found (compose.yaml, compose.yml, docker-compose.yaml, docker-compose.yml)")
}

func options(c *cli.Context) rewrite.Options {
	o := rewrite.DefaultOptions()
	o.DBs = c.StringSlice("db")
	o.Volume = c.String("volume")
	o.MountPath = c.String("mount-path")
	o.SocketDir = c.String("socket-dir")
	o.BindMount = c.String("bind-mount")
	o.AuthLocal = c.String("auth-local")
	o.JDBCFactory = c.String("jdbc-factory")
	o.Only = c.StringSlice("only")
	o.Exclude = c.StringSlice("exclude")
	o.DropTCP = c.Bool("drop-tcp")
	o.Env = os.Environ()
	o.ProjectDir = c.String("project-directory")
	o.EnvFiles = c.StringSlice("env-file")
	o.Profiles = c.StringSlice("profile")
	if len(o.Profiles) == 0 && os.Getenv("COMPOSE_PROFILES") != "" {
		o.Profiles = strings.Split(os.Getenv("COMPOSE_PROFILES"), ",")
	}
	return o
}

func migrateAction(c *cli.Context, stdout, stderr io.Writer) error {
	projects, err := readProjects(c, true)
	if err != nil {
		return err
	}
	if m := c.String("auth-local"); m != "" && m != "scram-sha-256" && m != "md5" && m != "password" {
		return &codeError{exitError, fmt.Errorf("--auth-local %q: want scram-sha-256, md5 or password", m)}
	}
	if len(projects) > 1 && c.Bool("smoke") {
		return usageErr("--smoke proves one project: run it once per FILE")
	}
	results, err := migrateProjects(c, projects, stderr)
	if err != nil {
		return err
	}
	if len(results) > 1 {
		return emitProjects(c, results, "migrate", stdout, stderr)
	}
	return smokeAfterMigrate(c, results[0], emit(c, results[0], "migrate", stdout, stderr), stderr)
}

// emit prints findings and delivers a result the way the flags ask: the
// new content on stdout, a diff, a --check list, or files written in place.
func emit(c *cli.Context, res *rewrite.Result, verb string, stdout, stderr io.Writer) error {
	write, showDiff, check := c.Bool("write"), c.Bool("diff"), c.Bool("check")
	for _, f := range res.Findings {
		fmt.Fprintln(stderr, f.String())
	}
	if res.NothingReason != "" {
		fmt.Fprintf(stderr, "uds-migrate: nothing to %s: %s\n", verb, res.NothingReason)
	}
	switch {
	case check:
		for _, f := range res.Files {
			if f.Changed {
				fmt.Fprintln(stdout, f.Path)
			}
		}
		if res.Changed() {
			return &codeError{exitChanges, nil}
		}
		return nil
	case showDiff:
		for _, f := range res.Files {
			if f.Changed {
				// git apply takes a/ and b/ paths relative to where it runs.
				name := strings.TrimPrefix(filepath.ToSlash(filepath.Clean(f.Path)), "/")
				stdout.Write(diff.Diff("a/"+name, f.Before, "b/"+name, f.After))
			}
		}
		if res.Changed() {
			return &codeError{exitChanges, nil}
		}
		return nil
	case write:
		var out []atomicfile.File
		for _, f := range res.Files {
			if f.Changed {
				out = append(out, atomicfile.File{Path: f.Path, Data: f.After})
			}
		}
		if err := atomicfile.WriteAll(out); err != nil {
			return &codeError{exitError, fmt.Errorf("nothing written: %w", err)}
		}
		for _, f := range out {
			fmt.Fprintf(stderr, "uds-migrate: wrote %s\n", f.Path)
		}
		return nil
	}
	if len(res.Files) > 1 {
		var changed []string
		for _, f := range res.Files {
			if f.Changed {
				changed = append(changed, f.Path)
			}
		}
		if len(changed) > 1 {
			return &codeError{exitError, fmt.Errorf("the migration changes several files (%s): use -w to write them or -d to see a diff", strings.Join(changed, ", "))}
		}
		for _, f := range res.Files {
			if f.Changed {
				_, err := io.Copy(stdout, bytes.NewReader(f.After))
				return err
			}
		}
	}
	_, err := stdout.Write(res.Files[0].After)
	return err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readProject reads the one project a command takes (see projectFiles);
// withOutput also checks that at most one of -w, -d and --check is given.
// Errors are *codeError with exit status 2.
func readProject(c *cli.Context, withOutput bool) ([]rewrite.Input, error) {
	projects, err := readProjects(c, withOutput)
	if err != nil {
		return nil, err
	}
	if len(projects) > 1 {
		return nil, usageErr("%s takes one project, got %d FILE arguments (each is a project of its own; use -f for several files of one project)", c.Command.Name, len(projects))
	}
	return projects[0], nil
}
