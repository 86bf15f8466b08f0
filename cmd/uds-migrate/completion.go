package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/bench"
	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// completeArg is the hidden first argument the completion scripts call the
// binary with: `uds-migrate __complete WORD... CURRENT` prints the
// candidates for CURRENT, one a line, and `:files` or `:dirs` when the
// shell should offer paths too (a FILE argument, -f FILE, --project-directory
// DIR). The scripts stay small; what the tool accepts is known here once.
const completeArg = "__complete"

// fileFlags take a file (or, dirFlags, a folder) as their value.
var (
	fileFlags = []string{"file", "f", "env-file", "output", "o", "config", "plot", "compose", "workload", "b"}
	dirFlags  = []string{"project-directory", "bind-mount", "compose-dir"}
)

// flagChoices are the values of the flags that take one of a few; level
// is the command ("" for the top level, "bench" for bench).
func flagChoices(level, name string) []string {
	switch name {
	case "format":
		if strings.HasPrefix(level, "bench") {
			return bench.Formats
		}
		return report.Formats
	case "fail-on":
		return []string{"error", "warning", "info", "none"}
	case "smoke-target":
		return []string{"auto", "embedded", "compose"}
	case "jdbc-factory":
		return []string{"factoryarg", "uri", "sysprop"}
	case "auth-local":
		return []string{"scram-sha-256", "md5"}
	case "M", "protocol":
		return []string{"simple", "extended", "prepared"}
	case "workload", "b":
		return []string{"lookup-small", "lookup-large", "heavy"}
	case "client":
		return []string{"pgx", "pgbench", "jdbc"}
	}
	return nil
}

// complete writes the candidates for the last of words (the word being
// typed, "" for a new one) given the words before it. Shells that split
// `--format=js` at "=" (bash) pass "--format", "=", "js".
func complete(app *cli.App, words []string, w io.Writer) {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	flags, cmds := app.Flags, app.Commands
	var path []string
	for i := 0; i < len(before); i++ {
		a := before[i]
		if a == "--" {
			break
		}
		if isFlag(a) {
			if !strings.Contains(a, "=") && takesValue(flags, flagName(a)) {
				i++
			}
			continue
		}
		if c := findCmd(cmds, a); c != nil {
			path = append(path, c.Name)
			flags, cmds = c.Flags, c.Subcommands
		}
	}
	level := strings.Join(path, " ")
	out := func(cands []string, prefix string) {
		for _, c := range cands {
			if strings.HasPrefix(c, cur) || strings.HasPrefix(prefix+c, cur) {
				fmt.Fprintln(w, prefix+c)
			}
		}
	}
	valueOf := func(name string) {
		switch {
		case slices.Contains(fileFlags, name):
			if name == "workload" || name == "b" {
				out(flagChoices(level, name), "")
			}
			fmt.Fprintln(w, ":files")
		case slices.Contains(dirFlags, name):
			fmt.Fprintln(w, ":dirs")
		default:
			out(flagChoices(level, name), "")
		}
	}
	// A flag's value: after the flag, after "--flag =" (bash), or in
	// "--flag=val" (zsh, fish: the candidates keep the flag).
	if n := len(before); n > 0 {
		prev := before[n-1]
		if prev == "=" && n > 1 && isFlag(before[n-2]) {
			prev = before[n-2]
		} else if strings.Contains(prev, "=") {
			prev = ""
		}
		if isFlag(prev) && takesValue(flags, flagName(prev)) {
			valueOf(flagName(prev))
			return
		}
	}
	if name, val, ok := strings.Cut(cur, "="); ok && isFlag(cur) && takesValue(flags, flagName(name)) {
		n := flagName(name)
		if slices.Contains(fileFlags, n) || slices.Contains(dirFlags, n) {
			valueOf(n)
			return
		}
		cur = val
		out(flagChoices(level, n), name+"=")
		return
	}
	if strings.HasPrefix(cur, "-") {
		var names []string
		for _, f := range flags {
			for _, n := range f.Names() {
				if len(n) == 1 {
					names = append(names, "-"+n)
				} else {
					names = append(names, "--"+n)
				}
			}
		}
		out(append(names, "--help"), "")
		return
	}
	switch level {
	case "completion":
		out([]string{"bash", "zsh", "fish"}, "")
		return
	case "explain":
		var codes []string
		for _, c := range rewrite.Codes() {
			codes = append(codes, c.ID)
		}
		out(codes, "")
		return
	}
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	out(names, "")
	switch level {
	case "", "plan", "validate", "revert":
		fmt.Fprintln(w, ":files") // compose files and folders of projects
	}
}

// bashCompletion asks the binary for candidates (complete) and adds paths
// where it says so. zsh runs it through bashcompinit. The slices are
// ${a[@]:offset:length}, 0-based in bash and zsh alike.
const bashCompletion = `# uds-migrate completion for bash (and zsh with bashcompinit):
#   source <(uds-migrate completion bash)
_uds_migrate_complete() {
  local cur="${COMP_WORDS[@]:$COMP_CWORD:1}" line files=0 dirs=0
  COMPREPLY=()
  while IFS= read -r line; do
    case "$line" in
      :files) files=1 ;;
      :dirs) dirs=1 ;;
      *) COMPREPLY+=("$line") ;;
    esac
  done < <("${COMP_WORDS[@]:0:1}" __complete "${COMP_WORDS[@]:1:$COMP_CWORD}" 2>/dev/null)
  if ((files)); then COMPREPLY+=($(compgen -f -- "$cur")); fi
  if ((dirs)); then COMPREPLY+=($(compgen -d -- "$cur")); fi
  return 0
}
complete -o filenames -o bashdefault -F _uds_migrate_complete uds-migrate
`

// fishCompletion does the same for fish.
const fishCompletion = `# uds-migrate completion for fish:
#   uds-migrate completion fish > ~/.config/fish/completions/uds-migrate.fish
function __uds_migrate_complete
    set -l cur (commandline -ct)
    set -l words (commandline -opc) "$cur"
    for line in ($words[1] __complete $words[2..-1] 2>/dev/null)
        switch $line
            case :files
                __fish_complete_path "$cur"
            case :dirs
                __fish_complete_directories "$cur"
            case '*'
                echo $line
        end
    end
end
complete -c uds-migrate -f -a '(__uds_migrate_complete)'
`

func completionCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh, fish)",
		UsageText: "source <(uds-migrate completion bash)\nsource <(uds-migrate completion zsh)\nuds-migrate completion fish > ~/.config/fish/completions/uds-migrate.fish",
		Action: func(c *cli.Context) error {
			var s string
			switch sh := c.Args().First(); sh {
			case "bash":
				s = bashCompletion
			case "zsh":
				s = "autoload -U +X compinit && { (( ${+_comps} )) || compinit -u; }\nautoload -U +X bashcompinit && bashcompinit\n" + bashCompletion
			case "fish":
				s = fishCompletion
			default:
				return &codeError{exitError, fmt.Errorf("completion %q: want bash, zsh or fish", sh)}
			}
			_, err := io.WriteString(stdout, s)
			return err
		},
	}
}

// manSections follow urfave/cli's page: what a reader of section 1
// expects beside the options (man-pages(7): EXIT STATUS, ENVIRONMENT,
// FILES, SEE ALSO).
const manSections = `.SH EXIT STATUS
.TP
.B 0
done, or nothing to do (validate: no error in the socket setup)
.TP
.B 1
changes pending (\fB\-\-check\fR, \fB\-\-diff\fR); validate: errors in the socket setup; any command: a finding at or above \fB\-\-fail\-on\fR
.TP
.B 2
error: an input that cannot be read or loaded, a refused command line, a run that cannot finish (\fB\-\-smoke\fR fails, a file cannot be written); nothing is written (with several projects, the others are still checked)
.SH ENVIRONMENT
.TP
.B COMPOSE_FILE
the compose files when no \fB\-f\fR is given, as in docker compose (also read from the project's .env and env files)
.TP
.B COMPOSE_PATH_SEPARATOR
the separator of COMPOSE_FILE (default : on Unix)
.TP
.B COMPOSE_ENV_FILES
comma-separated interpolation env files when no \fB\-\-env\-file\fR is given
.TP
.B COMPOSE_DISABLE_ENV_FILE
when true (strconv.ParseBool, as docker compose), the project directory's .env is not read for interpolation; \fB\-\-env\-file\fR and COMPOSE_ENV_FILES still are
.TP
.B COMPOSE_PROFILES
comma-separated profiles when no \fB\-\-profile\fR is given (without either, every service is migrated)
.TP
.B NO_COLOR
when set and not empty, text output has no colour even on a terminal (https://no-color.org)
.TP
.B DOCKER_HOST
the engine \fB\-\-smoke\-target compose\fR and \fBbench \-\-compose\fR reach through docker compose
.PP
The rest of the environment is compose's interpolation environment, as for docker compose.
.SH FILES
.TP
.B .uds-migrate.yaml
the config file: ignored codes, per-path ignores, flag defaults; the nearest one from the project's folder up to the repository's top level (or \fB\-\-config\fR)
.TP
.B compose.yaml, compose.yml, docker-compose.yml, docker-compose.yaml
the compose files found without \fB\-f\fR, with their override file, here or in the nearest folder above
.SH SEE ALSO
\fBdocker-compose\fR(1), \fBpostgres\fR(1), docs/findings.md (\fBuds-migrate explain\fR)
`

func manCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "man",
		Usage:     "print the manual page (roff, section 1)",
		UsageText: "uds-migrate man > uds-migrate.1 && man ./uds-migrate.1",
		Action: func(c *cli.Context) error {
			s, err := c.App.ToManWithSection(1)
			if err != nil {
				return err
			}
			_, err = io.WriteString(stdout, roffASCII(strings.TrimRight(s, "\n")+"\n"+manSections))
			return err
		},
	}
}

// roffASCII writes each non-ASCII character as groff's \[uXXXX] escape:
// troff reads bytes, and a UTF-8 "→" is two invalid characters to it
// unless the page goes through preconv.
func roffASCII(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, "\\[u%04X]", r)
	}
	return b.String()
}
