package rewrite

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/validate"
)

// combinations lists the other sets of compose files the project is run
// as, besides the run's own (inputs): the first file alone, and the first
// file with each other -f file and, when the first is a default compose
// file, with each override file of its folder. Paths keep the first file's
// form (relative stays relative).
func combinations(inputs []Input) [][]string {
	if len(inputs) == 0 {
		return nil
	}
	base := inputs[0].Path
	var others []string
	for _, in := range inputs[1:] {
		others = append(others, in.Path)
	}
	if slices.Contains(compose.DefaultFileNames, filepath.Base(base)) {
		for _, pat := range compose.OverridePatterns {
			m, _ := filepath.Glob(filepath.Join(filepath.Dir(base), pat))
			for _, f := range m {
				if !slices.Contains(others, f) && f != base && !slices.ContainsFunc(others, func(o string) bool { return sameFile(o, f) }) {
					others = append(others, f)
				}
			}
		}
	}
	own := make([]string, len(inputs))
	for i, in := range inputs {
		own[i] = in.Path
	}
	var out [][]string
	if len(inputs) > 1 {
		out = append(out, []string{base})
	}
	for _, o := range others {
		if c := []string{base, o}; !slices.Equal(c, own) {
			out = append(out, c)
		}
	}
	return out
}

// aloneSiblings lists the other compose files of the base file's folder,
// whatever their names (compose.SiblingFiles: dockerizing-django's
// production.yml beside docker-compose.yml), that the run does not load and
// combos does not pair with the base: each is a project docker compose
// runs alone (-f FILE), one combination each. A file the run reads through
// extends.file (extended: a library of services, common.yml) is part of
// this project, not another. A relative base keeps its siblings relative.
func aloneSiblings(ctx context.Context, inputs []Input, combos [][]string, opts Options, extended []*Source) [][]string {
	if len(inputs) == 0 {
		return nil
	}
	base := inputs[0].Path
	dir, err := filepath.Abs(filepath.Dir(base))
	if err != nil {
		return nil
	}
	var out [][]string
	for _, f := range compose.SiblingFiles(ctx, dir, opts.LoadOptions()) {
		if !filepath.IsAbs(base) {
			f = filepath.Join(filepath.Dir(base), filepath.Base(f))
		}
		taken := func(p string) bool { return p == f || sameFile(p, f) }
		if slices.ContainsFunc(inputs, func(in Input) bool { return taken(in.Path) }) ||
			slices.ContainsFunc(extended, func(src *Source) bool { return taken(src.Path) }) ||
			slices.ContainsFunc(combos, func(c []string) bool { return slices.ContainsFunc(c, taken) }) {
			continue
		}
		out = append(out, []string{f})
	}
	return out
}

// readsAny reports whether a loaded project reads one of files (absolute):
// as its interpolation env file (a variable of it in the file's text), a
// service's env_file, a config's file or
// below a bind mount's source.
func readsAny(p *analyze.Project, files []string) bool {
	if len(files) == 0 {
		return false
	}
	has := func(path string, below bool) bool {
		a, err := filepath.Abs(path)
		if err != nil || path == "" {
			return false
		}
		return slices.ContainsFunc(files, func(f string) bool {
			return f == a || below && strings.HasPrefix(f, a+string(filepath.Separator))
		})
	}
	// The folder's .env counts where the file interpolates one of the
	// variables it sets (Origin holds every variable the .env sets).
	for k, f := range p.Origin {
		if !has(f, false) {
			continue
		}
		ref := regexp.MustCompile(`\$\{?` + regexp.QuoteMeta(k) + `\b`)
		for _, src := range p.Sources {
			if ref.Match(src.Data) {
				return true
			}
		}
	}
	for _, c := range p.Model.Configs {
		if has(c.File, false) {
			return true
		}
	}
	for _, svc := range p.Model.Services {
		for _, e := range svc.EnvFiles {
			if has(e.Path, false) {
				return true
			}
		}
		for _, v := range svc.Volumes {
			if v.Type == "bind" && has(v.Source, true) {
				return true
			}
		}
	}
	return false
}

func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// checkCombinations validates each other combination of the project's
// files (see combinations) with the migrated content, and returns a
// warning (UDS180) for each one the migration leaves with a validate error
// it did not have before: that combination cannot be kept valid by edits
// to this run's files. A combination that does not load as it was is not
// the migration's to judge and is skipped.
func checkCombinations(ctx context.Context, inputs []Input, res *Result, opts Options, extended []*Source) []Finding {
	after := map[string][]byte{}
	for i, in := range inputs {
		after[in.Path] = res.Files[i].After
	}
	optsAfter := opts
	optsAfter.ReadFile = compose.Overlay(res.Files[len(inputs):], opts.ReadFile)
	var edited []string
	for _, f := range res.Files[len(inputs):] {
		if a, err := filepath.Abs(f.Path); err == nil && f.Changed {
			edited = append(edited, a)
		}
	}
	combos := combinations(inputs)
	alone := aloneSiblings(ctx, inputs, combos, opts, extended)
	var out []Finding
	for i, combo := range append(combos, alone...) {
		before, ok := comboInputs(inputs, combo, nil)
		if !ok {
			continue
		}
		pb, err := analyze.Load(ctx, before, opts)
		if err != nil {
			continue
		}
		if i >= len(combos) && !readsAny(pb, edited) {
			continue // a project of its own that shares no file this run edits
		}
		migrated, _ := comboInputs(inputs, combo, after)
		name := strings.Join(combo, " + ")
		pa, err := analyze.Load(ctx, migrated, optsAfter)
		if err != nil {
			out = append(out, newFinding("UDS180", Pos{File: combo[len(combo)-1]}, "", "",
				fmt.Sprintf("%s: this combination of compose files no longer loads after the migration (%s); the migration cannot keep it valid", name, compose.HideValues(err.Error()))))
			continue
		}
		for _, f := range validate.NewErrors(validate.Loaded(pb, opts), validate.Loaded(pa, optsAfter)) {
			out = append(out, newFinding("UDS180", f.Pos, f.Service, f.Key,
				fmt.Sprintf("%s: the migration cannot keep this combination of compose files valid: %s (%s)", name, f.Message, f.Code)))
		}
		out = append(out, unloadedValues(inputs, combo, pa, optsAfter)...)
	}
	return out
}

// unloadedValues reports (UDS184) each connection value that a migration
// of combo, on top of this run's output, would rewrite in a file this run
// does not load (compose.prod.yml beside a default run): that value stays
// on TCP, which still works, and the message gives the command that
// migrates it. The combination's migration is only planned, never
// written.
func unloadedValues(inputs []Input, combo []string, pa *analyze.Project, opts Options) []Finding {
	var unloaded []string
	for _, p := range combo {
		if !slices.ContainsFunc(inputs, func(in Input) bool { return in.Path == p || sameFile(in.Path, p) }) {
			unloaded = append(unloaded, p)
		}
	}
	if len(unloaded) == 0 {
		return nil
	}
	res, err := migrateLoaded(pa, opts)
	if err != nil {
		return nil
	}
	flags := "-f " + strings.Join(combo, " -f ")
	var out []Finding
	for _, c := range res.Changes {
		if c.Kind != "value" || !slices.Contains(unloaded, c.File) {
			continue
		}
		out = append(out, newFinding("UDS184", c.Pos, c.Service, c.Key,
			fmt.Sprintf("%s/%s in %s stays on TCP: this run does not load %s (docker compose does with %s); TCP still works, the server keeps listening; to migrate it too: uds-migrate %s -w",
				c.Service, c.Key, c.File, c.File, flags, flags)))
	}
	return out
}

// comboInputs reads the files of a combination: an input's bytes from the
// run (after, when given: the migrated ones), any other file from disk.
func comboInputs(inputs []Input, combo []string, after map[string][]byte) ([]Input, bool) {
	var out []Input
	for _, p := range combo {
		i := slices.IndexFunc(inputs, func(in Input) bool { return in.Path == p })
		switch {
		case i >= 0 && after != nil:
			out = append(out, Input{Path: p, Data: after[p]})
		case i >= 0:
			out = append(out, inputs[i])
		default:
			data, err := compose.ReadRegular(p)
			if err != nil {
				return nil, false
			}
			out = append(out, Input{Path: p, Data: data})
		}
	}
	return out, true
}
