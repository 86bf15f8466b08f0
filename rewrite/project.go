package rewrite

import (
	"context"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/pgserver"
)

// Input is one compose file to migrate (compose.Input).
type Input = compose.Input

// Source is one compose file as read (yamledit.Source, through compose).
type Source = compose.Source

// MaxFileSize is the largest file read, in bytes (yamledit.MaxFileSize).
const MaxFileSize = compose.MaxFileSize

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

// ReadInputs reads files named on the command line (compose.ReadInputs).
func ReadInputs(paths []string) ([]Input, error) { return compose.ReadInputs(paths) }

// InterpolationEnv is compose's interpolation environment for a project
// directory (compose.InterpolationEnv).
func InterpolationEnv(dir string, opts Options) (map[string]string, error) {
	return compose.InterpolationEnv(dir, opts.loadOptions())
}

func atoiPort(s string) (int, bool) { return pgserver.ParsePort(s) }
