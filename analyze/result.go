package analyze

import (
	"context"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/finding"
)

// ReportNotes hands the analysis' notes to a plan, in order: a finding to
// the report, a refused file to the editor (which reports it once per
// path, however often it is met).
func ReportNotes(notes []Note, ed *compose.Editor, rep *finding.Report) {
	for _, n := range notes {
		if n.Refused != nil {
			ed.Refuse(n.Refused.Path, n.Refused.Err)
			continue
		}
		rep.Findings = append(rep.Findings, n.Finding)
	}
}

// NewResult applies a plan's edits to every file (compose files, files
// named by extends, env and configuration files) and gathers its report:
// findings in reading order, passwords masked. volume names the socket
// volume the plan gave a database, "" for none (revert): such a database
// is described by the socket directory its settings give, one with a
// volume by the directory the volume shares.
func NewResult(p *Project, dbs []*DB, ed *compose.Editor, rep *finding.Report, volume func(*DB) string) (*Result, error) {
	SortFindings(p.Sources, rep.Findings)
	res := &Result{Changes: rep.Changes, Findings: rep.Findings}
	files, err := ed.Files()
	if err != nil {
		return nil, err
	}
	res.Files = files
	for _, db := range dbs {
		info := DBInfo{Service: db.Name, Family: db.Family, SocketDir: db.ConfigDir, Port: db.Port, Names: db.Names}
		if db.Server != nil && db.Server.Family != db.Family && db.Server.Family != "postgres" {
			info.Image = db.Server.Family
		}
		if v := volume(db); v != "" {
			info.SocketDir, info.Volume = db.SocketDir, v
		}
		res.DBs = append(res.DBs, info)
	}
	secrets := p.Secrets()
	compose.ScrubFindings(res.Findings, secrets)
	compose.ScrubChanges(res.Changes, secrets)
	return res, nil
}

// Reload loads a run's output as the next run reads it: the compose files
// of inputs with their new bytes, every other file (env, configuration,
// nginx files) read through an overlay of the result. It returns the
// options that read through the overlay too.
func Reload(ctx context.Context, inputs []compose.Input, res *Result, opts Options) (*Project, Options, error) {
	var again []compose.Input
	for _, f := range res.Files[:len(inputs)] {
		again = append(again, compose.Input{Path: f.Path, Data: f.After})
	}
	opts.ReadFile = compose.Overlay(res.Files[len(inputs):], opts.ReadFile)
	out, err := Load(ctx, again, opts)
	return out, opts, err
}
