package dockerfile

import (
	"encoding/json"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// A multi-stage build copies the context into a build stage and keeps
// only what the final stage takes from it (wakapi: COPY . . into
// build-env, then a distroless stage with COPY --from=build-env /staging
// /app): a script or configuration file the final stage never receives is
// not in the image that runs. ContextReach says which COPY/ADD sources of
// the context reach the image the build produces, following the stages
// the final stage is built FROM and the paths its --from copies take.

// ContextReach returns the build-context sources of a Dockerfile's COPY and
// ADD instructions (relative to the context, cleaned; "." is the whole
// context; the sources CopySources returns), split into those that reach
// the image the build produces (final) and those that only a build stage
// receives (buildOnly). The image is the stage named target, or the last
// stage when target is "". A source reaches it when it is copied into that
// stage or a stage it is built FROM, or into a stage whose files a --from
// copy of those stages takes (the part of the source that lands under the
// copied path: COPY . /src then COPY --from=build /src/app /app takes
// app). ok is false where the file does not say: a build argument or
// variable in a stage reference or a path, a path relative to a base
// image's unknown WORKDIR where a --from copy takes part of a stage, no
// FROM; callers then count every source as
// reaching the image (CopySources). isDir says whether a source is a
// directory of the context (its contents land in the destination, so a
// part of it can be taken); nil takes every source for one.
func ContextReach(dockerfile []byte, target string, isDir func(src string) bool) (final, buildOnly []string, ok bool) {
	stages, ok := readStages(dockerfile)
	if !ok || len(stages) == 0 {
		return nil, nil, false
	}
	last := len(stages) - 1
	if target != "" {
		if last = stageIndex(stages, strings.ToLower(target), len(stages)); last < 0 {
			return nil, nil, false
		}
	}
	if isDir == nil {
		isDir = func(string) bool { return true }
	}
	r := reach{stages: stages, taken: map[int]map[string]bool{}, isDir: isDir}
	if !r.image(last, "/", 0) {
		return nil, nil, false
	}
	seen := map[string]bool{}
	for i, st := range stages {
		for _, c := range st.copies {
			if c.from != "" {
				continue
			}
			for _, src := range c.srcs {
				if seen[src] {
					continue
				}
				seen[src] = true
				if r.taken[i][src] {
					final = append(final, src)
				}
			}
		}
	}
	// A source copied twice counts where it reaches the image; the
	// parts of a source a --from copy takes are listed as such.
	for i := range stages {
		for src := range r.taken[i] {
			if !seen[src] {
				seen[src] = true
				final = append(final, src)
			}
		}
	}
	for _, st := range stages {
		for _, c := range st.copies {
			for _, src := range c.srcs {
				if c.from == "" && !contains(final, src) && !contains(buildOnly, src) {
					buildOnly = append(buildOnly, src)
				}
			}
		}
	}
	return final, buildOnly, true
}

// stage is one FROM of a Dockerfile: its name, the earlier stage it is
// built FROM (-1 for an image), and its COPY/ADD instructions.
type stage struct {
	name   string
	base   int
	copies []copyIns
}

// copyIns is one COPY or ADD: its sources (context-relative for a copy
// from the context, absolute in the other stage for --from), where they
// land (absolute), and the stage (index, as a string) of --from.
type copyIns struct {
	srcs []string
	dest string
	from string // "" for the context; else the index of the stage
}

// readStages reads the stages of a Dockerfile with their copies; ok is
// false when a reference or path uses a variable, or a relative path has
// no known directory.
func readStages(data []byte) ([]stage, bool) {
	var stages []stage
	dir := "" // the current stage's WORKDIR; "" while only the base image knows it
	dirs := map[int]string{}
	for ins, f := range instructionWords(data) {
		op := strings.ToUpper(f[0])
		if op != "FROM" && len(stages) == 0 {
			continue // ARG before the first FROM
		}
		switch op {
		case "FROM":
			args := f[1:]
			for len(args) > 0 && strings.HasPrefix(args[0], "--") {
				args = args[1:]
			}
			if len(args) == 0 || strings.Contains(args[0], "$") {
				return nil, false
			}
			st := stage{base: stageIndex(stages, strings.ToLower(args[0]), len(stages))}
			if len(args) >= 3 && strings.EqualFold(args[1], "AS") {
				st.name = strings.ToLower(args[2])
			}
			dir = ""
			if st.base >= 0 {
				dir = dirs[st.base]
			}
			stages = append(stages, st)
		case "WORKDIR":
			w := strings.Trim(strings.TrimSpace(ins[len(f[0]):]), `"'`)
			switch {
			case strings.Contains(w, "$"):
				dir = "$"
			case path.IsAbs(w):
				dir = path.Clean(w)
			case dir != "" && dir != "$":
				dir = path.Join(dir, w)
			default:
				dir = "$"
			}
		case "COPY", "ADD":
			c, ok := readCopy(ins, f[0], stages, dir)
			if !ok {
				return nil, false
			}
			if c.srcs != nil {
				stages[len(stages)-1].copies = append(stages[len(stages)-1].copies, c)
			}
		}
		dirs[len(stages)-1] = dir
	}
	return stages, true
}

// readCopy reads one COPY or ADD of the current stage (the last of
// stages), whose WORKDIR is dir. A copy from an image (--from=nginx) has
// no sources here.
func readCopy(ins, op string, stages []stage, dir string) (copyIns, bool) {
	var c copyIns
	rest := strings.TrimSpace(ins[len(op):])
	from := ""
	for strings.HasPrefix(rest, "--") {
		flag, after, _ := strings.Cut(rest, " ")
		if v, ok := strings.CutPrefix(flag, "--from="); ok {
			from = strings.ToLower(v)
		}
		rest = strings.TrimSpace(after)
	}
	var args []string
	if strings.HasPrefix(rest, "[") {
		if json.Unmarshal([]byte(rest), &args) != nil {
			return c, true // not read by CopySources either
		}
	} else {
		args = strings.Fields(rest)
	}
	if len(args) < 2 || strings.HasPrefix(args[0], "<<") {
		return c, true
	}
	if from != "" {
		i := stageIndex(stages, from, len(stages)-1)
		if strings.Contains(from, "$") {
			return c, false
		}
		if i < 0 {
			return c, true // an image's files, not the context's
		}
		c.from = strconv.Itoa(i)
	}
	dest := args[len(args)-1]
	if strings.Contains(dest, "$") {
		return c, false
	}
	switch {
	case path.IsAbs(dest):
		c.dest = path.Clean(dest)
	case dir != "" && dir != "$":
		c.dest = path.Join(dir, dest)
	default:
		c.dest = "" // on the base image's WORKDIR: where only matters below "/"
	}
	for _, a := range args[:len(args)-1] {
		switch {
		case strings.Contains(a, "://"):
		case c.from != "":
			if strings.Contains(a, "$") {
				return c, false
			}
			c.srcs = append(c.srcs, path.Join("/", a))
		default:
			c.srcs = append(c.srcs, filepath.Clean(a))
		}
	}
	return c, true
}

// stageIndex returns the index of the stage named ref (or numbered, as
// --from=0 counts) among the first n stages, or -1.
func stageIndex(stages []stage, ref string, n int) int {
	for i := n - 1; i >= 0; i-- {
		if stages[i].name != "" && stages[i].name == ref {
			return i
		}
	}
	if i, err := strconv.Atoi(ref); err == nil && i >= 0 && i < n {
		return i
	}
	return -1
}

// reach marks the context sources (and their parts) that reach the image:
// taken[stage][source] for each copy into a stage the image holds files of.
type reach struct {
	stages []stage
	taken  map[int]map[string]bool
	isDir  func(src string) bool
}

// image marks what stage i holds under the path under ("/" for all of
// it): its own context copies landing there, its base stage's, and what
// its --from copies bring there from other stages. depth bounds the
// chain. It reports false when a path cannot be followed.
func (r reach) image(i int, under string, depth int) bool {
	if depth > 8 {
		return false
	}
	st := r.stages[i]
	if st.base >= 0 && !r.image(st.base, under, depth+1) {
		return false
	}
	for _, c := range st.copies {
		if c.dest == "" && under != "/" {
			return false // where it lands matters, and only the base image knows
		}
		if c.from == "" {
			for _, src := range c.srcs {
				if part, ok := landsUnder(src, c.dest, under, r.isDir(src)); ok {
					r.take(i, part)
				}
			}
			continue
		}
		// COPY --from=S X D: what lands under `under` here is what S
		// holds under X (the part of D below `under`, moved back to X).
		j, _ := strconv.Atoi(c.from)
		for _, x := range c.srcs {
			var in string
			switch {
			case under == "/" || within(c.dest, under):
				in = x // all of it lands under `under`
			case within(under, c.dest):
				in = path.Join(x, strings.TrimPrefix(under, c.dest)) // a part of it
			default:
				continue
			}
			if strings.ContainsAny(x, "*?[") {
				in = path.Dir(x) // a pattern: its directory, conservatively
			}
			if !r.image(j, in, depth+1) {
				return false
			}
		}
	}
	return true
}

func (r reach) take(i int, src string) {
	if r.taken[i] == nil {
		r.taken[i] = map[string]bool{}
	}
	r.taken[i][src] = true
}

// landsUnder returns the part of context source src (copied to dest)
// that lands under the path under, and whether any does. A directory's
// contents land in dest; a single file lands at dest or, when dest is a
// directory, at dest/<name>: both are taken as its place.
func landsUnder(src, dest, under string, dir bool) (string, bool) {
	if under == "/" || within(dest, under) || within(path.Join(dest, path.Base(filepath.ToSlash(src))), under) {
		return src, true
	}
	if dir && within(under, dest) {
		return filepath.Join(src, filepath.FromSlash(strings.TrimPrefix(under, dest+"/"))), true
	}
	return "", false
}

// within reports whether slash path p is dir or below it.
func within(p, dir string) bool {
	return dir == "/" || p == dir || strings.HasPrefix(p, dir+"/")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
