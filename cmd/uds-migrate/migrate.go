package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/internal/atomicfile"
	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

func migrateFlags() []cli.Flag {
	flags := append(projectFlags(), outputFlags()...)
	flags = append(flags, findingFlags("findings on stderr as text, json, sarif or gcc (file:line:col: warning: message [CODE])", "none")...)
	return append(flags, smokeFlags()...)
}

// outputFlags choose how a result is delivered.
func outputFlags() []cli.Flag {
	return append([]cli.Flag{},
		&cli.BoolFlag{Name: "write", Aliases: []string{"w"}, Usage: "rewrite the files in place (atomically, all or none)"},
		&cli.BoolFlag{Name: "diff", Aliases: []string{"d"}, Usage: "print a unified diff (git apply accepts it); exit 1 when there are changes"},
		&cli.BoolFlag{Name: "check", Usage: "print the files that would change; exit 1 when any would"},
	)
}

// projectFlags are the flags of the commands that plan a migration
// (migrate, plan): how to load the project, and the migration's options.
func projectFlags() []cli.Flag {
	return append(loadFlags(), migrationFlags()...)
}

// loadFlags say which project to read and which services are databases:
// every command that reads a project takes them (validate and revert only
// these).
func loadFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "file", Aliases: []string{"f"}, Usage: "compose file (repeatable, merged in order; default as docker compose finds them: COMPOSE_FILE, else compose.yaml, compose.yml, docker-compose.yml or docker-compose.yaml with its override file, here or in the nearest folder above)"},
		&cli.StringFlag{Name: "project-directory", Usage: "compose's project directory (default: the first file's directory); without -f, the compose files are looked for there"},
		&cli.StringSliceFlag{Name: "env-file", Usage: "compose's interpolation env file (repeatable; default COMPOSE_ENV_FILES, else PROJECT_DIR/.env)"},
		&cli.BoolFlag{Name: "changed", Usage: "the FILE arguments are files a commit changes (the pre-commit hook): run on each compose project under the working directory that owns one (a file in its folder, or one its compose files name)"},
		&cli.StringSliceFlag{Name: "profile", Usage: "only services of these profiles (repeatable; default COMPOSE_PROFILES, else every service)"},
		&cli.StringSliceFlag{Name: "db", Usage: "treat SERVICE as a PostgreSQL server (repeatable; official, PostGIS, TimescaleDB and Bitnami images are found without it)"},
		&cli.StringSliceFlag{Name: "socket-dir", Usage: "`DIR`: socket directory inside the --db services whose image the tool does not know; SERVICE=DIR: that database's (repeatable)"},
	}
}

// migrationFlags shape the migration itself.
func migrationFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "volume", Usage: "name of the socket volume (default <db-service>-socket)"},
		&cli.StringFlag{Name: "mount-path", Value: "/var/run/postgresql", Usage: "where client services mount the socket volume (read-only)"},
		&cli.StringFlag{Name: "bind-mount", Usage: "use this host folder as the socket directory instead of a named volume (warned: root-owned, not on macOS Docker Desktop)"},
		&cli.StringFlag{Name: "auth-local", Usage: "add POSTGRES_INITDB_ARGS=--auth-local=`METHOD` (scram-sha-256 or md5) so socket logins need a password (new data directories only)"},
		&cli.StringFlag{Name: "jdbc-factory", Value: "factoryarg", Usage: "junixsocket factory for JDBC URLs: factoryarg (socketFactoryArg=FILE), uri (file:// host) or sysprop (JAVA_TOOL_OPTIONS)"},
		&cli.StringSliceFlag{Name: "only", Usage: "migrate only these client services (repeatable)"},
		&cli.StringSliceFlag{Name: "exclude", Usage: "leave these client services on TCP (repeatable)"},
		&cli.StringSliceFlag{Name: "consumer", Usage: "SERVICE/KEY=READER or SERVICE/KEY=FORM (KEY=...: that variable in every service): the program that reads this connection URI (a reader of consumer/readers.yaml: psycopg, pgx, node-postgres, prisma, asyncpg, sqlalchemy, ...) or the socket form it takes (empty: @/DB?host=DIR, localhost: @localhost/DB?host=DIR), where the project does not show it (repeatable)"},
		&cli.StringSliceFlag{Name: "host-var", Usage: "SERVICE/KEY: the application hands this host variable to a driver that takes a socket directory (libpq, psycopg, pgx, the pg gem); set it to the mount path (repeatable)"},
		&cli.BoolFlag{Name: "drop-tcp", Usage: "app servers behind nginx listen on the socket only (without it: on the socket and on their TCP port)"},
	}
}

func options(c *cli.Context) rewrite.Options {
	o := rewrite.DefaultOptions()
	o.DBs = c.StringSlice("db")
	o.Volume = c.String("volume")
	if m := c.String("mount-path"); m != "" { // validate and revert have no such flag
		o.MountPath = m
	}
	o.SocketDir, o.ServiceSocketDirs = socketDirs(c.StringSlice("socket-dir"))
	o.BindMount = c.String("bind-mount")
	o.AuthLocal = c.String("auth-local")
	o.JDBCFactory = c.String("jdbc-factory")
	o.Only = c.StringSlice("only")
	o.Exclude = c.StringSlice("exclude")
	o.HostVars = c.StringSlice("host-var")
	o.Consumers = c.StringSlice("consumer")
	o.DropTCP = c.Bool("drop-tcp")
	o.Env = os.Environ()
	o.ProjectDir = c.String("project-directory")
	o.EnvFiles = c.StringSlice("env-file")
	o.Profiles = c.StringSlice("profile") // else COMPOSE_PROFILES: see discover
	return o
}

// socketDirs splits --socket-dir values into the plain DIR (the last one
// given) and SERVICE=DIR pairs. A directory starts with /, a service name
// never does.
func socketDirs(vals []string) (plain string, perService map[string]string) {
	for _, v := range vals {
		svc, dir, ok := strings.Cut(v, "=")
		if !ok || strings.HasPrefix(v, "/") {
			plain = v
			continue
		}
		if perService == nil {
			perService = map[string]string{}
		}
		perService[svc] = dir
	}
	return plain, perService
}

func migrateAction(c *cli.Context, d *docRun, stdout, stderr io.Writer) error {
	if err := unknownCommand(c); err != nil {
		return &codeError{exitError, err}
	}
	projects, err := readProjects(c, true, d)
	if err != nil {
		return err
	}
	if len(projects) > 1 && c.Bool("smoke") {
		return usageErr("--smoke proves one project: run it once per FILE")
	}
	runs, failed := migrateProjects(projects)
	if len(runs) == 0 {
		return noProjects(d, "migrate", failed)
	}
	for _, r := range runs {
		r.res.Findings = keepFindings(c, d, r.res.Findings, r.inputs)
	}
	all := summarize(c, results(runs), "migrate", d)
	if c.Bool("smoke") {
		// The check runs on the new bytes before they replace the old
		// (or reach stdout): a value that cannot connect leaves every
		// file as it was.
		if err := smokeRun(c, runs[0].composeProject, all.Files, all.Changes, d, stderr); err != nil {
			return err
		}
	}
	return afterFailures(deliver(c, all, "migrate", stdout, d), failed)
}

// noProjects ends a run that has no project to deliver: every one failed
// (failed), or the folder arguments hold none (an empty document, exit 0).
func noProjects(d *docRun, verb string, failed error) error {
	if failed != nil {
		return failed
	}
	p := report.FromFindings(verb, nil)
	d.plan = &p
	return nil
}

// summarize merges the results of the projects a command ran on into one
// (files, findings and changes of all of them, in order), makes it the
// document of d, and notes "nothing to VERB" for each project that has
// nothing to do.
func summarize(c *cli.Context, results []*rewrite.Result, verb string, d *docRun) *rewrite.Result {
	all := results[0]
	if len(results) > 1 {
		all = &rewrite.Result{}
		for _, res := range results {
			all.Files = append(all.Files, res.Files...)
			all.Findings = append(all.Findings, res.Findings...)
			all.Changes = append(all.Changes, res.Changes...)
		}
	}
	p := report.FromResult(verb, reportInput(all))
	d.plan = &p
	for _, res := range results {
		if res.NothingReason == "" || c.Bool("quiet") {
			continue
		}
		if len(results) > 1 {
			d.note("%s: nothing to %s: %s", res.Files[0].Path, verb, res.NothingReason)
		} else {
			d.note("nothing to %s: %s", verb, res.NothingReason)
		}
		for _, n := range res.Notes {
			d.note("%s", n)
		}
	}
	return all
}

// deliver delivers a result the way the flags ask: the new content on
// stdout, a diff, a --check list, or files written in place; lines for
// people go to d's notes.
func deliver(c *cli.Context, res *rewrite.Result, verb string, stdout io.Writer, d *docRun) error {
	write, showDiff, check := c.Bool("write"), c.Bool("diff"), c.Bool("check")
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
				name, outside := diffName(f.Path)
				if outside && !c.Bool("quiet") {
					d.note("%s is outside the working directory: the diff names it from / (apply it with: git apply --directory=/ --unsafe-paths -p1, or run -d from a directory that holds it)", f.Path)
				}
				stdout.Write(unifiedDiff("a/"+name, f.Before, "b/"+name, f.After))
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
			if !c.Bool("quiet") {
				d.note("wrote %s", f.Path)
			}
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

// diffName is the path a diff header names a file by: relative to the
// working directory, which is where git apply resolves a/ and b/ paths.
// git apply rejects ".." in them, so a file outside the working directory
// is named by its absolute path without the leading "/" (as git diff
// --no-index names absolute paths), and outside is true.
func diffName(p string) (name string, outside bool) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "/"), false
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel), false
		}
	}
	return strings.TrimPrefix(filepath.ToSlash(abs), "/"), true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
