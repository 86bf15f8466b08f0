package rewrite

import (
	"context"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/pgserver"
)

// project is a loaded compose project with what every command decides
// about it before planning: the connection values that do not parse.
type project struct {
	*compose.Project
	// badConn are the findings (UDS163) of connection values that do not
	// parse, keyed by "file:line:col": they are skipped, the rest migrated.
	badConn map[string]Finding
}

// load is compose.Load, then the connection values every command skips.
func load(ctx context.Context, inputs []Input, opts Options) (*project, error) {
	cp, err := compose.Load(ctx, inputs, opts.loadOptions())
	if err != nil {
		return nil, err
	}
	p := &project{Project: cp}
	p.badConn = p.checkConnValues()
	return p, nil
}

// loadOptions are the options compose itself takes.
func (o Options) loadOptions() compose.LoadOptions {
	return compose.LoadOptions{Env: o.Env, ProjectDir: o.ProjectDir, EnvFiles: o.EnvFiles, Profiles: o.Profiles, ReadFile: o.ReadFile}
}

func atoiPort(s string) (int, bool) { return pgserver.ParsePort(s) }
