package compose

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/confine"
)

// A path the project names inside its directory is read and edited only
// where it really is inside: ./linkdir/cfg with linkdir -> ../outside would
// have -w write, and evidence read, files outside the project (issue 25).
// Paths written outside the project (include: ../infra/db.yml, env_file:
// ../common.env) are the compose file's author's choice and are taken as
// written; evidence is never read from them (evidence.Scope).

// Escapes returns a *confine.EscapeError when path (absolute, or relative
// to the working directory like the compose file paths) is inside the
// project directory as written but leads outside it once its symbolic
// links are resolved; nil otherwise.
func (p *Project) Escapes(path string) error {
	if p.Model == nil || p.Model.WorkingDir == "" {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(p.Model.WorkingDir)
	if err != nil || !confine.Within(dir, abs) {
		return nil
	}
	return confine.Check(dir, abs)
}

// noteEscape records an env file escapes refused, for the planner to
// report (reportEscapes).
func (p *Project) noteEscape(path string, err error) {
	if p.escaped == nil {
		p.escaped = map[string]error{}
	}
	p.escaped[path] = err
}

// Escaped are the env files left unread because they lead outside the
// project through a symbolic link, by path, with why (a
// *confine.EscapeError).
func (p *Project) Escaped() map[string]error { return p.escaped }

// reportEscapes turns the env files the project refused to read into
// findings, in path order.
func (e *Editor) reportEscapes() {
	for _, path := range slices.Sorted(maps.Keys(e.p.Escaped())) {
		e.Refuse(path, e.p.Escaped()[path])
	}
}

// Refuse reports a path that leads outside the project (UDS172), once.
func (e *Editor) Refuse(path string, err error) {
	shown := e.p.DisplayPath(path)
	if e.refused[shown] {
		return
	}
	e.refused[shown] = true
	msg := err.Error()
	var esc *confine.EscapeError
	if errors.As(err, &esc) && esc.Link != "" {
		msg = fmt.Sprintf("%s leads outside the project directory: %s is a symbolic link to %s", shown, e.p.DisplayPath(esc.Link), esc.Target)
	}
	e.rep.Add("UDS172", finding.Pos{File: shown}, "", "", msg+"; not read or edited, its values stay as they are")
}
