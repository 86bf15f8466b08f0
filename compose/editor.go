package compose

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/internal/textedit"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// FileResult is the new content of one file a run read: a compose file, a
// file named by extends or include, an env file, a configuration file.
type FileResult struct {
	Path    string
	Before  []byte
	After   []byte
	Changed bool
}

// Editor is the one way a run changes a compose project's bytes: compose
// constructs (a value where it is written, a mount, a top-level volume, a
// variable after another) on top of yamledit for the compose files, and
// byte ranges of the other files (env files, configuration files) on top
// of textedit. What it cannot edit exactly it reports (UDS111), with the
// files that lead out of the project (UDS172); every edit it makes that a
// reviewer should see is a Change. Files applies everything.
type Editor struct {
	p   *Project
	rep *finding.Report

	yaml     map[*Source]*yamledit.Editor
	appended map[*yaml.Node]map[string]bool // items appended per sequence
	newKeys  []*pendingKey                  // volumes: keys to add, written by Flush
	topAdded map[topVolume]bool             // top-level volumes declared in this run, per file
	reserved map[string]bool                // socket volume names already picked (SocketVolumeName)
	newTop   map[*Source][]string           // volumes for a top-level section to create
	removed  map[*yaml.Node]int             // items removed per volumes: list (RemoveMount)
	// removedItem: items removed (a shared list is reached once per service)
	removedItem map[*yaml.Node]bool
	// mounting: the services getting the mount being added (Mounting)
	mounting map[string]bool

	extra     []FileResult          // other files' results, in edit order
	fileEdits map[string]*fileEdits // pending edits of other files, per path
	fileOrder []string
	refused   map[string]bool // paths reported with UDS172
}

// NewEditor starts an empty set of edits to p, reporting into rep.
func NewEditor(p *Project, rep *finding.Report) *Editor {
	return &Editor{p: p, rep: rep, yaml: map[*Source]*yamledit.Editor{},
		appended: map[*yaml.Node]map[string]bool{}, topAdded: map[topVolume]bool{}, reserved: map[string]bool{},
		newTop: map[*Source][]string{}, removed: map[*yaml.Node]int{}, removedItem: map[*yaml.Node]bool{}, refused: map[string]bool{}}
}

// YAML is the editor of one compose file (or a file named by extends), for
// edits below the level of compose constructs.
func (e *Editor) YAML(src *Source) *yamledit.Editor {
	ye := e.yaml[src]
	if ye == nil {
		ye = yamledit.NewEditor(src)
		e.yaml[src] = ye
	}
	return ye
}

// Failed reports an edit yamledit could not make (a *finding.PosError at
// the node it was asked to change) as UDS111 about service's key, named
// in the message when given, and whether there was one.
func (e *Editor) Failed(err error, service, key string) bool {
	var pe *finding.PosError
	if !errors.As(err, &pe) {
		return false
	}
	msg := pe.Msg
	if service != "" && key != "" {
		msg = service + "/" + key + ": " + msg
	}
	e.rep.Add("UDS111", pe.Pos, service, key, msg)
	return true
}

// ReplaceScalar swaps the text of scalar n of src for v in n's own quoting
// style. It reports false (with a UDS111 finding) when the value cannot be
// located exactly.
func (e *Editor) ReplaceScalar(src *Source, n *yaml.Node, v string, inFlow bool) bool {
	return !e.Failed(e.YAML(src).ReplaceScalar(n, v, inFlow), "", "")
}

// ReadFile reads a file that is not a compose file: refused (UDS172) when
// it leads out of the project through a symbolic link, the content this
// run gave it when it edited it already, else through the project's
// reader (LoadOptions.ReadFile).
func (e *Editor) ReadFile(path string) ([]byte, error) {
	if err := e.p.Escapes(path); err != nil {
		e.Refuse(path, err)
		return nil, err
	}
	for _, f := range e.extra {
		if f.Path == path {
			return f.After, nil
		}
	}
	return e.p.ReadFile(path)
}

// PutFile records new content for a file that is not a compose file;
// path is the path as reports and -w use it (relative to the working
// directory, like the compose file paths).
func (e *Editor) PutFile(path string, before, after []byte) {
	for i, f := range e.extra {
		if f.Path == path {
			e.extra[i].After, e.extra[i].Changed = after, !bytes.Equal(f.Before, after)
			return
		}
	}
	e.extra = append(e.extra, FileResult{Path: path, Before: before, After: after, Changed: !bytes.Equal(before, after)})
}

// EditFile records a replacement of bytes [start, end) of data, the
// content of a file that is not a compose file, by text; Flush applies it.
// The same replacement twice is made once (one env file shared by several
// services).
func (e *Editor) EditFile(path string, data []byte, start, end int, text string) {
	if e.fileEdits == nil {
		e.fileEdits = map[string]*fileEdits{}
	}
	fe := e.fileEdits[path]
	if fe == nil {
		fe = &fileEdits{data: data}
		e.fileEdits[path] = fe
		e.fileOrder = append(e.fileOrder, path)
	}
	for _, ed := range fe.edits {
		if ed.Start == start && ed.End == end {
			return // one env file shared by several services: edit once
		}
	}
	fe.edits = append(fe.edits, textedit.Edit{Start: start, End: end, New: text})
}

type fileEdits struct {
	data  []byte
	edits []textedit.Edit
}

// Flush writes what waits for every other edit: the volumes: keys and
// top-level sections to add (at the end of each service and file), the
// edits of the other files, and the UDS172 findings of the env files the
// project refused to read.
func (e *Editor) Flush() error {
	e.finish()
	for _, path := range e.fileOrder {
		fe := e.fileEdits[path]
		out, err := textedit.Apply(fe.data, fe.edits)
		if err != nil {
			return fmt.Errorf("internal error: %s: %w", path, err)
		}
		e.PutFile(path, fe.data, out)
	}
	e.reportEscapes()
	return nil
}

// Files applies the edits: every compose file (changed or not, in -f then
// include order), the files named by extends that changed, then the other
// files in edit order. As a last line of defence, whatever planned it, no
// edit lands outside the project through a symbolic link (the -f files are
// the user's own).
func (e *Editor) Files() ([]FileResult, error) {
	var out []FileResult
	for _, src := range e.p.Sources {
		b, err := e.YAML(src).Bytes()
		if err != nil {
			return nil, err
		}
		out = append(out, FileResult{Path: src.Path, Before: src.Data, After: b, Changed: !bytes.Equal(b, src.Data)})
	}
	for _, src := range e.p.ExtSources {
		b, err := e.YAML(src).Bytes()
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(b, src.Data) {
			out = append(out, FileResult{Path: src.Path, Before: src.Data, After: b, Changed: true})
		}
	}
	out = append(out, e.extra...)
	for _, f := range out[len(e.p.Sources)-e.p.Included:] {
		if err := e.p.Escapes(f.Path); err != nil && f.Changed {
			return nil, &finding.PosError{Pos: finding.Pos{File: f.Path}, Msg: "refusing to edit it: " + err.Error()}
		}
	}
	return out, nil
}

// Overlay reads a file's new content when files holds it (content a run
// made, which may not be on disk yet), else through next (ReadRegular when
// nil): the reader a second load of a run's output uses. Paths match when
// they name the same file, however spelled.
func Overlay(files []FileResult, next func(string) ([]byte, error)) func(string) ([]byte, error) {
	byPath := map[string][]byte{}
	for _, f := range files {
		if abs, err := filepath.Abs(f.Path); err == nil {
			if _, seen := byPath[abs]; !seen {
				byPath[abs] = f.After
			}
		}
	}
	return func(p string) ([]byte, error) {
		if abs, err := filepath.Abs(p); err == nil {
			if b, ok := byPath[abs]; ok {
				return b, nil
			}
		}
		if next != nil {
			return next(p)
		}
		return ReadRegular(p)
	}
}
