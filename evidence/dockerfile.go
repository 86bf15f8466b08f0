package evidence

import (
	"bytes"
	"encoding/json"
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
	for _, ins := range instructions(dockerfile) {
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

// instructions joins backslash-continued lines and drops comments.
func instructions(data []byte) []string {
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

// DockerIgnored reports whether path (inside context, both absolute) is
// left out of the build context by the .dockerignore patterns in
// ignoreFile (docker's rules, read with moby/patternmatcher, as BuildKit
// reads them): COPY . . does not copy it into the image. An unreadable
// pattern file ignores nothing.
func DockerIgnored(ignoreFile []byte, context, path string) bool {
	rel, err := filepath.Rel(context, path)
	if err != nil || strings.HasPrefix(rel, "..") {
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
