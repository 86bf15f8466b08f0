package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// bashCompletion is urfave/cli v2's autocomplete/bash_autocomplete (MIT),
// with PROG fixed: it asks the binary for candidates with
// --generate-bash-completion. zsh runs it after `autoload bashcompinit &&
// bashcompinit`.
const bashCompletion = `# uds-migrate completion for bash (and zsh with bashcompinit):
#   source <(uds-migrate completion bash)
_uds_migrate_complete() {
  local cur words cword
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  local request="${words[*]} --generate-bash-completion"
  if [[ "$cur" == "-"* ]]; then
    request="${words[*]} ${cur} --generate-bash-completion"
  fi
  COMPREPLY=($(compgen -W "$(eval "${request}" 2>/dev/null)" -- "${cur}"))
  return 0
}
complete -o bashdefault -o default -o nospace -F _uds_migrate_complete uds-migrate
`

func completionCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh, fish)",
		UsageText: "source <(uds-migrate completion bash)\nuds-migrate completion fish > ~/.config/fish/completions/uds-migrate.fish",
		Action: func(c *cli.Context) error {
			switch sh := c.Args().First(); sh {
			case "bash", "zsh":
				prefix := ""
				if sh == "zsh" {
					prefix = "autoload -U +X bashcompinit && bashcompinit\n"
				}
				_, err := io.WriteString(stdout, prefix+bashCompletion)
				return err
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				_, err = io.WriteString(stdout, s)
				return err
			default:
				return &codeError{exitError, fmt.Errorf("completion %q: want bash, zsh or fish", sh)}
			}
		},
	}
}

func manCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "man",
		Usage:     "print the manual page (roff)",
		UsageText: "uds-migrate man > uds-migrate.1 && man ./uds-migrate.1",
		Action: func(c *cli.Context) error {
			s, err := c.App.ToMan()
			if err != nil {
				return err
			}
			_, err = io.WriteString(stdout, s)
			return err
		},
	}
}
