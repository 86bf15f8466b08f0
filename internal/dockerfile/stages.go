package dockerfile

import (
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Context is what ImageSources needs to know of a build context.
type Context struct {
	// Stat reports whether rel (slash-separated, relative to the context
	// root, "." for it) is in the context, and whether it is a directory.
	Stat func(rel string) (isDir, ok bool)
	// Pruned returns the context sources (relative) `turbo prune` keeps
	// for the named workspaces: their folders, those of the workspaces
	// they depend on, the root manifest; ok is false when it cannot tell.
	Pruned func(scopes []string) (srcs []string, ok bool)
}

// ImageSources returns the build-context sources (relative to the
// context, cleaned; "." is the whole context; a COPY pattern is kept as
// written) whose files, or what a build step made of them, end up in the
// image of stage target (the last stage when target is ""): the stage's
// COPY and ADD sources, and those of the stages it copies from, followed
// through WORKDIR and the COPY destinations:
//
//   - COPY --from=builder /app/packages/db/prisma ./prisma, after
//     builder's COPY . . in WORKDIR /app, brings packages/db/prisma only;
//   - a path of a stage that no COPY of the context wrote (a build's
//     output, /app/dist) may hold anything that reached that stage: all of
//     it counts;
//   - turbo prune SCOPE's output (out/) holds the workspaces Pruned names,
//     not the whole context (https://turborepo.com/docs/reference/prune;
//     vercel/turbo#1100: "turbo prune --scope=app will generate a
//     directory out/ with app, lib-config and tooling");
//   - RUN --mount=type=bind (the context, by default) counts as a COPY of
//     its source for what the step makes.
//
// A stage that copies nothing from the context (FROM node, or COPY --from
// an image) adds nothing. ok is false when the Dockerfile holds what this
// cannot follow (a build argument in a path, COPY --parents, a --from or
// target naming no stage): the caller then keeps every COPY source
// (CopySources).
func ImageSources(data []byte, target string, c Context) ([]string, bool) {
	kept, built, ok := ImageSourcesByKind(data, target, c)
	if !ok {
		return nil, false
	}
	out := append(kept, built...)
	slices.Sort(out)
	return slices.Compact(out), true
}

// ImageSourcesByKind is ImageSources split by how a source reaches the
// image: kept, copied into the image's stages as the file itself (COPY .
// . of the final stage, COPY --from=builder of a path a context COPY wrote),
// and builtOnly, reaching it only as what a build step made of it (a
// --from copy of a build's output, /staging or /app/dist, or a RUN's bind
// mount: wakapi's build-env gets the tree, its distroless stage only the
// binary). A source in both is kept. A builder's script or configuration
// file is then not in the image, while its manifests and code still say
// what the binary is (the caller decides which files those are).
func ImageSourcesByKind(data []byte, target string, c Context) (kept, builtOnly []string, ok bool) {
	var stages []*stage
	byName := map[string]*stage{}
	var cur *stage
	for ins, f := range instructionWords(data) {
		op := strings.ToUpper(f[0])
		if op == "FROM" {
			cur = newStage(f[1:], byName)
			stages = append(stages, cur)
			if cur.name != "" {
				byName[cur.name] = cur
			}
			byName[strconv.Itoa(len(stages)-1)] = cur
			continue
		}
		if cur == nil {
			continue // ARG before the first FROM
		}
		var ok bool
		switch op {
		case "WORKDIR":
			ok = cur.setWorkdir(strings.TrimSpace(ins[len(f[0]):]))
		case "COPY", "ADD":
			ok = cur.copy(strings.TrimSpace(ins[len(f[0]):]), byName, c)
		case "RUN":
			ok = cur.run(f[1:], byName, c)
		default:
			ok = true
		}
		if !ok {
			return nil, nil, false
		}
	}
	if len(stages) == 0 {
		return nil, nil, false
	}
	final := stages[len(stages)-1]
	if target != "" {
		if final = byName[strings.ToLower(target)]; final == nil {
			return nil, nil, false
		}
	}
	kept = slices.Clone(final.reach)
	slices.Sort(kept)
	kept = slices.Compact(kept)
	for _, b := range final.built {
		if !slices.Contains(kept, b) && !slices.Contains(builtOnly, b) {
			builtOnly = append(builtOnly, b)
		}
	}
	slices.Sort(builtOnly)
	return kept, builtOnly, true
}

// A stage of a multi-stage build, as far as the context goes: where its
// commands run (workdir, "" when the base image's own applies), which of
// its paths hold which context source (maps), every source that reached
// it as the file itself (reach) or only as what a build step made of it
// (built), and turbo prune's output folder if a RUN made one.
type stage struct {
	name    string
	workdir string
	maps    []mapping
	reach   []string
	built   []string
	pruned  *prunedOut
}

// mapping says the stage's path dst holds context source src (a file, or
// a directory's content).
type mapping struct{ dst, src string }

type prunedOut struct {
	dir  string   // absolute in the stage; "" when its workdir is not known
	srcs []string // what it holds of the context
}

// newStage starts a stage from FROM's arguments: an earlier stage's
// filesystem when it names one, else an image's (nothing of the context).
func newStage(args []string, byName map[string]*stage) *stage {
	for len(args) > 0 && strings.HasPrefix(args[0], "--") {
		args = args[1:]
	}
	s := &stage{}
	if len(args) >= 3 && strings.EqualFold(args[1], "AS") {
		s.name = strings.ToLower(args[2])
	}
	if len(args) > 0 {
		if from := byName[strings.ToLower(args[0])]; from != nil {
			s.workdir, s.maps, s.reach, s.built, s.pruned = from.workdir, slices.Clone(from.maps), slices.Clone(from.reach), slices.Clone(from.built), from.pruned
		}
	}
	return s
}

func (s *stage) setWorkdir(w string) bool {
	if len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0] {
		w = w[1 : len(w)-1]
	}
	switch {
	case strings.Contains(w, "$"):
		return false
	case path.IsAbs(w):
		s.workdir = path.Clean(w)
	case s.workdir != "":
		s.workdir = path.Join(s.workdir, w)
	}
	return true
}

// abs is a destination or RUN path in the stage, "" when it depends on
// a workdir the Dockerfile does not give.
func (s *stage) abs(p string) string {
	switch {
	case path.IsAbs(p):
		return path.Clean(p)
	case s.workdir != "":
		return path.Join(s.workdir, p)
	}
	return ""
}

// copy follows one COPY or ADD (its text after the instruction name).
func (s *stage) copy(rest string, byName map[string]*stage, c Context) bool {
	from, isFrom := "", false
	for strings.HasPrefix(rest, "--") {
		flag, after, _ := strings.Cut(rest, " ")
		rest = strings.TrimSpace(after)
		switch {
		case strings.HasPrefix(flag, "--from="):
			from, isFrom = strings.ToLower(strings.TrimPrefix(flag, "--from=")), true
		case flag == "--parents" || strings.HasPrefix(flag, "--parents="):
			return false
		}
	}
	if strings.Contains(rest, "<<") {
		return true // a heredoc: text of the Dockerfile, not of the context
	}
	var args []string
	if strings.HasPrefix(rest, "[") {
		if json.Unmarshal([]byte(rest), &args) != nil {
			return false
		}
	} else {
		args = strings.Fields(rest)
	}
	if len(args) < 2 || strings.Contains(rest, "$") {
		return false
	}
	srcs, dest := args[:len(args)-1], args[len(args)-1]
	intoDir := strings.HasSuffix(dest, "/") || len(srcs) > 1
	dst := s.abs(dest)
	if !isFrom {
		for _, src := range srcs {
			if strings.Contains(src, "://") {
				continue // a remote ADD
			}
			src = path.Clean(strings.TrimPrefix(src, "/"))
			s.reach = append(s.reach, src)
			if isDir, ok := c.Stat(src); ok && dst != "" && !strings.ContainsAny(src, "*?[") {
				s.maps = append(s.maps, mapping{copyDest(dst, src, isDir, intoDir), src})
			}
		}
		return true
	}
	t := byName[from]
	if t == nil {
		return true // an image (docker takes a name no stage has for one): nothing of the context
	}
	for _, src := range srcs {
		s.copyFrom(t, path.Join("/", src), dst, intoDir, c)
	}
	return true
}

// copyFrom follows COPY --from=t of t's path src to dst in s.
func (s *stage) copyFrom(t *stage, src, dst string, intoDir bool, c Context) {
	for _, m := range slices.Backward(t.maps) { // a later COPY wins
		if rest, ok := under(src, m.dst); ok {
			rel := path.Join(m.src, rest)
			if isDir, ok := c.Stat(rel); ok {
				s.reach = append(s.reach, rel)
				if dst != "" {
					s.maps = append(s.maps, mapping{copyDest(dst, rel, isDir, intoDir), rel})
				}
				return
			}
		}
	}
	// Built in t (or partly): whatever reached t may be in it, as what a
	// build step made of it; a context COPY below src is there itself.
	if p := t.pruned; p != nil && p.dir != "" {
		if _, ok := under(src, p.dir); ok {
			s.reach = append(s.reach, p.srcs...)
			return
		}
	}
	s.built = append(append(s.built, t.reach...), t.built...)
	for _, m := range t.maps {
		if rest, ok := under(m.dst, src); ok {
			s.reach = append(s.reach, m.src)
			if dst != "" {
				s.maps = append(s.maps, mapping{path.Join(dst, rest), m.src})
			}
		}
	}
}

// run follows a RUN: a bind mount of the context (or of a stage) counts
// for what the step makes; turbo prune records its output folder.
func (s *stage) run(words []string, byName map[string]*stage, c Context) bool {
	for _, w := range words {
		spec, ok := strings.CutPrefix(w, "--mount=")
		if !ok {
			continue
		}
		opts := map[string]string{}
		for _, kv := range strings.Split(spec, ",") {
			k, v, _ := strings.Cut(kv, "=")
			opts[k] = v
		}
		if opts["type"] != "bind" {
			continue
		}
		if from := strings.ToLower(opts["from"]); from != "" {
			if t := byName[from]; t != nil {
				s.built = append(append(s.built, t.reach...), t.built...)
			}
			continue
		}
		src := opts["source"]
		if src == "" {
			src = opts["src"]
		}
		if strings.Contains(src, "$") {
			return false
		}
		s.built = append(s.built, path.Clean(strings.TrimPrefix(src, "/")))
	}
	if scopes, out, ok := turboPrune(words); ok && c.Pruned != nil {
		if srcs, ok := c.Pruned(scopes); ok {
			s.pruned = &prunedOut{dir: s.abs(out), srcs: srcs}
		}
	}
	return true
}

// turboPrune reads `turbo prune` in a RUN's words: the workspaces it keeps
// (--scope=X, --scope X, or the names after prune) and its output folder
// (--out-dir, default out).
func turboPrune(words []string) (scopes []string, out string, ok bool) {
	i := slices.Index(words, "prune")
	if i < 1 || path.Base(words[i-1]) != "turbo" {
		return nil, "", false
	}
	out = "out"
	for j := i + 1; j < len(words); j++ {
		w := words[j]
		switch {
		case w == "&&" || w == ";" || w == "|" || w == "||":
			j = len(words)
		case strings.HasPrefix(w, "--scope="):
			scopes = append(scopes, strings.TrimPrefix(w, "--scope="))
		case w == "--scope" && j+1 < len(words):
			j++
			scopes = append(scopes, words[j])
		case strings.HasPrefix(w, "--out-dir="):
			out = strings.TrimPrefix(w, "--out-dir=")
		case w == "--out-dir" && j+1 < len(words):
			j++
			out = words[j]
		case !strings.HasPrefix(w, "-"):
			scopes = append(scopes, w)
		}
	}
	for i, sc := range scopes {
		scopes[i] = strings.Trim(sc, `"'`)
	}
	return scopes, out, len(scopes) > 0 && !strings.Contains(out, "$")
}

// copyDest is where COPY puts source src at destination dst: inside dst
// when dst is a folder (a trailing /, several sources) and src a file, the
// directory's content at dst itself.
func copyDest(dst, src string, isDir, intoDir bool) string {
	if intoDir && !isDir {
		return path.Join(dst, path.Base(src))
	}
	return dst
}

// under reports whether p is at or below dir, and the rest of it.
func under(p, dir string) (string, bool) {
	if p == dir {
		return ".", true
	}
	if dir == "/" {
		return strings.TrimPrefix(p, "/"), true
	}
	if rest, ok := strings.CutPrefix(p, dir+"/"); ok {
		return rest, true
	}
	return "", false
}

// OpaqueBase returns the image a Dockerfile's final stage (or target)
// builds on when no stage of its chain (the final stage and the stages it
// is FROM) puts a file of the build context into it: no COPY or ADD of the
// context, no RUN --mount, and no COPY --from a stage that has one. Only
// the base image's ONBUILD instructions, which a Dockerfile does not show,
// may then copy the context (ledermann/docker-rails: FROM
// ghcr.io/ledermann/rails-base-final, whose ONBUILD COPY takes the app
// from the builder stage, itself FROM rails-base-builder, whose ONBUILD
// copies the context; the Dockerfile's own COPY --from=Builder
// /etc/alpine-release copies no project file). "" when the chain copies
// from the context, names a build argument, or there is no FROM.
func OpaqueBase(data []byte, target string) string {
	type chain struct {
		from   string
		copies bool     // a COPY, ADD or RUN --mount of the context
		takes  []string // the stages (or images) a COPY --from names
	}
	var stages []*chain
	byName := map[string]*chain{}
	var cur *chain
	for ins, f := range instructionWords(data) {
		switch op := strings.ToUpper(f[0]); {
		case op == "FROM":
			args := f[1:]
			for len(args) > 0 && strings.HasPrefix(args[0], "--") {
				args = args[1:]
			}
			if len(args) == 0 {
				return ""
			}
			cur = &chain{from: strings.ToLower(args[0])}
			stages = append(stages, cur)
			if len(args) >= 3 && strings.EqualFold(args[1], "AS") {
				byName[strings.ToLower(args[2])] = cur
			}
			byName[strconv.Itoa(len(stages)-1)] = cur
		case cur == nil:
		case op == "COPY" || op == "ADD":
			from := ""
			for _, w := range f[1:] {
				if v, ok := strings.CutPrefix(strings.ToLower(w), "--from="); ok {
					from = v
				}
			}
			if from == "" {
				cur.copies = true
			} else {
				cur.takes = append(cur.takes, from)
			}
		case op == "RUN" && strings.Contains(ins, "--mount"):
			cur.copies = true
		}
	}
	if len(stages) == 0 {
		return ""
	}
	// copiesContext follows a stage's FROM and COPY --from stages; depth
	// bounds a cycle (a stage cannot name a later one, but be safe).
	var copiesContext func(s *chain, depth int) bool
	copiesContext = func(s *chain, depth int) bool {
		if s.copies || depth > len(stages) {
			return true
		}
		for _, t := range append([]string{s.from}, s.takes...) {
			if strings.Contains(t, "$") {
				return true
			}
			if st, ok := byName[t]; ok && copiesContext(st, depth+1) {
				return true
			}
		}
		return false
	}
	s := stages[len(stages)-1]
	if target != "" {
		if s = byName[strings.ToLower(target)]; s == nil {
			return ""
		}
	}
	if copiesContext(s, 0) {
		return ""
	}
	for depth := 0; depth <= len(stages); depth++ {
		parent, ok := byName[s.from]
		if !ok {
			return s.from
		}
		s = parent
	}
	return ""
}
