package rewrite

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/internal/confine"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/internal/textedit"
)

// setValue writes a new value for an environment variable where it is
// written. m is the masked original raw text, out the rewritten masked value.
// It reports false, with a finding, when the value cannot be written
// exactly.
func (pl *planner) setValue(v compose.EnvVar, m interp.Masked, out string) bool {
	if v.EnvFile == nil {
		return pl.replaceScalar(v.Src, v.Node, v.Prefix, m.Unmask(out), v.InFlow)
	}
	text, err := envFileText(v.EnvFile, m, out)
	if err != nil {
		pl.findings.add("UDS111", v.Pos, v.Service, v.Key, err.Error())
		return false
	}
	if err := pl.p.Escapes(v.EnvFile.Path); err != nil {
		pl.refuse(v.EnvFile.Path, err)
		return false
	}
	pl.editFile(v.EnvFile.Path, v.EnvFile.Data, v.EnvFile.Start, v.EnvFile.End, text)
	return true
}

// envFileText renders a value for an env file. A literal $ (junixsocket's
// $FactoryArg) is only safe in single quotes, where dotenv does not
// interpolate; references to other variables must stay outside them.
func envFileText(el *compose.EnvLine, m interp.Masked, out string) (string, error) {
	hasRef := false
	for _, r := range out {
		if ref, ok := m.Ref(r); ok && ref != "$" {
			hasRef = true
		}
	}
	var b strings.Builder
	for _, r := range out {
		if ref, ok := m.Ref(r); ok {
			b.WriteString(ref)
			continue
		}
		b.WriteRune(r)
	}
	plain := b.String() // references as written, literal $ bare
	needsLiteralDollar := strings.ContainsRune(out, '$')
	switch {
	case el.Quote == '\'' || (needsLiteralDollar && !hasRef):
		if strings.ContainsRune(plain, '\'') {
			return "", fmt.Errorf("the new value contains a single quote; write it by hand")
		}
		return "'" + plain + "'", nil
	case needsLiteralDollar:
		return "", fmt.Errorf("the value mixes variable references with a literal $ (junixsocket's $FactoryArg), which an env file cannot hold; set it in the compose file's environment: with $$FactoryArg")
	case el.Quote == '"':
		return `"` + strings.ReplaceAll(plain, `"`, `\"`) + `"`, nil
	default:
		if strings.ContainsAny(plain, " #'\"") {
			return `"` + plain + `"`, nil
		}
		return plain, nil
	}
}

// editFile records a replacement in a file that is not a compose file.
func (pl *planner) editFile(path string, data []byte, start, end int, text string) {
	if pl.other.fileEdits == nil {
		pl.other.fileEdits = map[string]*fileEdits{}
	}
	fe := pl.other.fileEdits[path]
	if fe == nil {
		fe = &fileEdits{data: data}
		pl.other.fileEdits[path] = fe
		pl.other.fileOrder = append(pl.other.fileOrder, path)
	}
	for _, e := range fe.edits {
		if e.Start == start && e.End == end {
			return // one env file shared by several services: edit once
		}
	}
	fe.edits = append(fe.edits, textedit.Edit{Start: start, End: end, New: text})
}

type fileEdits struct {
	data  []byte
	edits []textedit.Edit
}

// flushFiles applies the edits of non-compose files and records them.
func (pl *planner) flushFiles() error {
	for _, path := range pl.other.fileOrder {
		fe := pl.other.fileEdits[path]
		out, err := textedit.Apply(fe.data, fe.edits)
		if err != nil {
			return fmt.Errorf("internal error: %s: %w", path, err)
		}
		pl.putFile(path, fe.data, out)
	}
	return nil
}

// reportEscapes turns the env files the project refused to read into
// findings, in path order.
func (pl *planner) reportEscapes() {
	for _, path := range slices.Sorted(maps.Keys(pl.p.Escaped())) {
		pl.refuse(path, pl.p.Escaped()[path])
	}
}

// refuse reports a path that leads outside the project (UDS172), once.
func (pl *planner) refuse(path string, err error) {
	if pl.refused == nil {
		pl.refused = map[string]bool{}
	}
	shown := pl.p.DisplayPath(path)
	if pl.refused[shown] {
		return
	}
	pl.refused[shown] = true
	msg := err.Error()
	var e *confine.EscapeError
	if errors.As(err, &e) && e.Link != "" {
		msg = fmt.Sprintf("%s leads outside the project directory: %s is a symbolic link to %s", shown, pl.p.DisplayPath(e.Link), e.Target)
	}
	pl.findings.add("UDS172", Pos{File: shown}, "", "", msg+"; not read or edited, its values stay as they are")
}
