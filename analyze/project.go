package analyze

import (
	"context"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/pgserver"
)

// Project is a loaded compose project with what every command decides
// about it before planning: the connection values that do not parse.
type Project struct {
	*compose.Project
	// badConn are the findings (UDS163) of connection values that do not
	// parse, keyed by "file:line:col": they are skipped, the rest migrated.
	badConn map[string]finding.Finding
}

// Load is compose.Load, then the connection values every command skips.
func Load(ctx context.Context, inputs []compose.Input, opts Options) (*Project, error) {
	cp, err := compose.Load(ctx, inputs, opts.LoadOptions())
	if err != nil {
		return nil, err
	}
	p := &Project{Project: cp}
	p.badConn = p.checkConnValues()
	return p, nil
}

// LoadOptions are the options compose itself takes.
func (o Options) LoadOptions() compose.LoadOptions {
	return compose.LoadOptions{Env: o.Env, ProjectDir: o.ProjectDir, EnvFiles: o.EnvFiles, Profiles: o.Profiles, ReadFile: o.ReadFile}
}

func atoiPort(s string) (int, bool) { return pgserver.ParsePort(s) }
