package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completionCases are command lines as typed up to <TAB> (a trailing
// space starts a new word) and candidates the shell must offer (want) or
// must not (not).
var completionCases = []struct {
	line      string
	want, not []string
}{
	{"uds-migrate --wri", []string{"--write"}, nil},
	{"uds-migrate pl", []string{"plan"}, []string{"validate"}},
	{"uds-migrate completion ", []string{"bash", "zsh", "fish"}, nil},
	{"uds-migrate plan --format ", []string{"text", "json", "sarif", "gcc"}, nil},
	{"uds-migrate validate --fail-on w", []string{"warning"}, []string{"error"}},
	{"uds-migrate -f ", []string{"compose.yml", "notes.txt"}, []string{"plan"}},
	{"uds-migrate -f comp", []string{"compose.yml"}, []string{"notes.txt"}},
	{"uds-migrate plan ", []string{"compose.yml"}, nil},
	{"uds-migrate --project-directory ", []string{"sub"}, []string{"compose.yml"}},
	{"uds-migrate explain UDS10", []string{"UDS101"}, []string{"UDS201"}},
	{"uds-migrate bench --format ", []string{"json"}, []string{"sarif"}},
}

// completionShells runs each case in a shell: the script `uds-migrate
// completion SHELL` prints, driven the way the shell drives it at <TAB>
// (bash and zsh: the completion function over COMP_WORDS/COMP_CWORD; fish:
// complete -C). It returns the candidates of each case.
var completionShells = map[string]func(line string) string{
	"bash": func(line string) string {
		return "source <(uds-migrate completion bash)\n" + compWords(line) + "_uds_migrate_complete; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
	},
	"zsh": func(line string) string {
		// zsh's completion system sets PREFIX to the word typed;
		// bashcompinit's compgen -f globs ${PREFIX}*.
		return "source <(uds-migrate completion zsh)\n" + compWords(line) + "PREFIX=" + shQuote(lastWord(line)) + "\n_uds_migrate_complete; print -rl -- \"${COMPREPLY[@]}\"\n"
	},
	"fish": func(line string) string {
		return "uds-migrate completion fish | source\ncomplete -C " + shQuote(line) + " | string replace -r '\\t.*' ''; true\n"
	},
}

// compWords sets COMP_WORDS and COMP_CWORD for a typed line, as bash
// splits it (the line's words here hold no "=" or quotes).
func compWords(line string) string {
	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	var q []string
	for _, w := range words {
		q = append(q, shQuote(w))
	}
	return fmt.Sprintf("COMP_WORDS=(%s); COMP_CWORD=%d\n", strings.Join(q, " "), len(words)-1)
}

// lastWord is the word being typed ("" after a space).
func lastWord(line string) string {
	if strings.HasSuffix(line, " ") {
		return ""
	}
	f := strings.Fields(line)
	return f[len(f)-1]
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestCompletionShells (issue #23 point 8): --<TAB> offers flags, -f <TAB>
// files, --project-directory <TAB> folders, completion <TAB> the shells,
// a flag's value its choices, in bash, zsh and fish. scripts/test.sh
// installs zsh and fish; without them (and without CI=true) their cases
// skip.
func TestCompletionShells(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"compose.yml", "notes.txt", "sub/x"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			bin, err := exec.LookPath(sh)
			if err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("CI=true and no %s: scripts/test.sh installs it", sh)
				}
				t.Skipf("no %s (apt-get install %s)", sh, sh)
			}
			for _, c := range completionCases {
				cmd := exec.Command(bin, "-c", completionShells[sh](c.line))
				cmd.Dir = dir
				home := t.TempDir()
				cmd.Env = append(os.Environ(), "HOME="+home, "ZDOTDIR="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home, "XDG_CACHE_HOME="+home)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Run(); err != nil {
					t.Fatalf("%s, %q: %v\n%s", sh, c.line, err, errb.String())
				}
				var got []string
				for _, l := range strings.Split(out.String(), "\n") {
					if l = strings.TrimSuffix(strings.TrimSpace(l), "/"); l != "" {
						got = append(got, l)
					}
				}
				for _, w := range c.want {
					if !slices.Contains(got, w) {
						t.Errorf("%s, %q<TAB>: %q not offered; got %q (stderr %q)", sh, c.line, w, got, errb.String())
					}
				}
				for _, n := range c.not {
					if slices.Contains(got, n) {
						t.Errorf("%s, %q<TAB>: %q offered; got %q", sh, c.line, n, got)
					}
				}
			}
		})
	}
}
