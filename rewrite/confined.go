package rewrite

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/uds-migrate/uds-migrate/internal/confine"
)

// A path the project names inside its directory is read and edited only
// where it really is inside: ./linkdir/cfg with linkdir -> ../outside would
// have -w write, and evidence read, files outside the project (issue 25).
// Paths written outside the project (include: ../infra/db.yml, env_file:
// ../common.env) are the compose file's author's choice and are taken as
// written; evidence is never read from them (evidence.Scope).

// escapes returns a *confine.EscapeError when path (absolute, or relative
// to the working directory like the compose file paths) is inside the
// project directory as written but leads outside it once its symbolic
// links are resolved; nil otherwise.
func (p *project) escapes(path string) error {
	if p.model == nil || p.model.WorkingDir == "" {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(p.model.WorkingDir)
	if err != nil || !confine.Within(dir, abs) {
		return nil
	}
	return confine.Check(dir, abs)
}

// noteEscape records an env file escapes refused, for the planner to
// report (reportEscapes).
func (p *project) noteEscape(path string, err error) {
	if p.escaped == nil {
		p.escaped = map[string]error{}
	}
	p.escaped[path] = err
}

// reportEscapes turns the env files the project refused to read into
// findings, in path order.
func (pl *planner) reportEscapes() {
	for _, path := range slices.Sorted(maps.Keys(pl.p.escaped)) {
		pl.refuse(path, pl.p.escaped[path])
	}
}

// refuse reports a path that leads outside the project (UDS172), once.
func (pl *planner) refuse(path string, err error) {
	if pl.refused == nil {
		pl.refused = map[string]bool{}
	}
	shown := pl.p.displayPath(path)
	if pl.refused[shown] {
		return
	}
	pl.refused[shown] = true
	msg := err.Error()
	var e *confine.EscapeError
	if errors.As(err, &e) && e.Link != "" {
		msg = fmt.Sprintf("%s leads outside the project directory: %s is a symbolic link to %s", shown, pl.p.displayPath(e.Link), e.Target)
	}
	pl.findings.add("UDS172", Pos{File: shown}, "", "", msg+"; not read or edited, its values stay as they are")
}
