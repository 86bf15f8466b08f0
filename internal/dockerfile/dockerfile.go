// Package dockerfile is uds-migrate's one Dockerfile reader: where a
// compose build's Dockerfile is (Path), its instructions with continuation
// lines joined and comments dropped (Instructions), and what the
// migration asks of them: the image the last stage builds FROM, the user
// its processes run as, the files COPY and ADD take from the context, and
// the files .dockerignore leaves out of it.
package dockerfile

import (
	"bytes"
	"encoding/json"
	"iter"
	"path"
	"path/filepath"
	"strings"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// CopySources returns the build-context sources of a Dockerfile's COPY and
// ADD instructions (relative to the context; "." is the whole context),
// skipping multi-stage `--from=` copies and remote ADD sources: the files
// of the project that end up in the image.
func CopySources(dockerfile []byte) []string {
	var out []string
	for _, ins := range Instructions(dockerfile) {
		fields := strings.Fields(ins)
		if len(fields) < 3 {
			continue
		}
		op := strings.ToUpper(fields[0])
		if op != "COPY" && op != "ADD" {
			continue
		}
		args, from := []string{}, false
		rest := strings.TrimSpace(ins[len(fields[0]):])
		for strings.HasPrefix(rest, "--") {
			flag, after, _ := strings.Cut(rest, " ")
			from = from || strings.HasPrefix(flag, "--from")
			rest = strings.TrimSpace(after)
		}
		if from {
			continue
		}
		if strings.HasPrefix(rest, "[") {
			if json.Unmarshal([]byte(rest), &args) != nil {
				continue
			}
		} else {
			args = strings.Fields(rest)
		}
		for _, a := range args[:max(len(args)-1, 0)] {
			if !strings.Contains(a, "://") {
				out = append(out, filepath.Clean(a))
			}
		}
	}
	return out
}

// Instructions are the instructions of a Dockerfile, one string each:
// backslash-continued lines joined, comments and blank lines dropped.
func Instructions(data []byte) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasSuffix(t, "\\") {
			cur.WriteString(strings.TrimSuffix(t, "\\") + " ")
			continue
		}
		cur.WriteString(t)
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	return out
}

// instructionWords yields each instruction with an argument and its words
// (the instruction's name first).
func instructionWords(data []byte) iter.Seq2[string, []string] {
	return func(yield func(string, []string) bool) {
		for _, ins := range Instructions(data) {
			if f := strings.Fields(ins); len(f) >= 2 && !yield(ins, f) {
				return
			}
		}
	}
}

// Path is the Dockerfile a compose build reads: dockerfile (default
// "Dockerfile") in the build context, unless it is absolute.
func Path(context, dockerfile string) string {
	if dockerfile == "" {
		dockerfile = "Dockerfile"
	}
	if !filepath.IsAbs(dockerfile) {
		dockerfile = filepath.Join(context, dockerfile)
	}
	return dockerfile
}

// From returns the image the last stage of a Dockerfile builds FROM, or
// "" (a build argument in the reference cannot be resolved here).
func From(data []byte) string {
	from := ""
	for _, ins := range Instructions(data) {
		f := strings.Fields(ins)
		if len(f) >= 2 && strings.EqualFold(f[0], "FROM") {
			ref := f[1]
			if strings.HasPrefix(ref, "--") && len(f) >= 3 {
				ref = f[2]
			}
			from = ref
		}
	}
	if strings.Contains(from, "$") {
		return ""
	}
	return from
}

// User returns the last USER of a Dockerfile's final stage and whether a
// RUN of that stage runs mkdir on dir.
func User(data []byte, dir string) (user string, makesDir bool) {
	for ins, f := range instructionWords(data) {
		switch strings.ToUpper(f[0]) {
		case "FROM":
			user, makesDir = "", false
		case "USER":
			user = f[1]
		case "RUN":
			if strings.Contains(ins, "mkdir") && strings.Contains(ins, dir) {
				makesDir = true
			}
		}
	}
	return user, makesDir
}

// Workdir returns the working directory a container of the stage target
// (the last stage when target is "") starts in when compose sets no
// working_dir: the stage's last WORKDIR, a relative one taken from the
// WORKDIR before it (https://docs.docker.com/reference/dockerfile/#workdir:
// "If a relative path is provided, it will be relative to the path of the
// previous WORKDIR instruction"; on a base image's own WORKDIR otherwise,
// https://docs.docker.com/reference/build-checks/workdir-relative-path),
// a stage FROM an earlier stage starting from that stage's.
// It is "" when the Dockerfile does not say: no WORKDIR (the base image's
// own applies, which only the image knows), a relative WORKDIR on such a
// base, or a variable ($APP_HOME) the tool cannot resolve.
func Workdir(data []byte, target string) string {
	stages := map[string]string{} // stage name (lower case) → its workdir
	dir, last := "", ""
	for ins, f := range instructionWords(data) {
		switch strings.ToUpper(f[0]) {
		case "FROM":
			args := f[1:]
			for len(args) > 0 && strings.HasPrefix(args[0], "--") {
				args = args[1:]
			}
			if len(args) == 0 {
				dir = ""
				continue
			}
			dir = stages[strings.ToLower(args[0])] // an earlier stage's, else the base image's: unknown
			last = ""
			if len(args) >= 3 && strings.EqualFold(args[1], "AS") {
				last = strings.ToLower(args[2])
			}
		case "WORKDIR":
			w := strings.TrimSpace(ins[len(f[0]):])
			if len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0] {
				w = w[1 : len(w)-1] // WORKDIR "/path/to/workdir"
			}
			switch {
			case strings.Contains(w, "$"):
				dir = ""
			case path.IsAbs(w):
				dir = path.Clean(w)
			case dir != "":
				dir = path.Join(dir, w)
			}
		}
		if last != "" {
			stages[last] = dir
		}
	}
	if target != "" {
		return stages[strings.ToLower(target)]
	}
	return dir
}

// Ignored reports whether path (inside context, both absolute) is left
// out of the build context by the .dockerignore patterns in ignoreFile
// (docker's rules, read with moby/patternmatcher, as BuildKit reads them):
// COPY . . does not copy it into the image. An unreadable pattern file
// ignores nothing.
func Ignored(ignoreFile []byte, context, path string) bool {
	rel, err := filepath.Rel(context, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	patterns, err := ignorefile.ReadAll(bytes.NewReader(ignoreFile))
	if err != nil {
		return false
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		return false
	}
	ignored, err := pm.MatchesOrParentMatches(filepath.ToSlash(rel))
	return err == nil && ignored
}
