package smoke

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// service is one compose service as the smoke check needs it: its
// effective environment and its mounts.
type service struct {
	name string
	// env is the container environment: env_file entries overridden by
	// environment:, interpolated, as docker compose hands it over.
	env map[string]string
	// mounts are the service's volume and bind mounts (targets cleaned).
	mounts []mount
}

type mount struct {
	source, target string
	bind           bool
}

// project is the migrated project: its compose files as inputs for
// package rewrite, and compose-go's view of each service.
type project struct {
	inputs   []rewrite.Input
	services []service
	dir      string // absolute project directory
}

// loadProject loads the first n files (the compose files, in -f order)
// from their migrated bytes with compose.Load, as the migration loads a
// project. The other files (env files and included files the migration
// rewrote) are read from files instead of the disk, both for interpolation
// (.env, --env-file) and for services' env_file.
func loadProject(ctx context.Context, files []rewrite.FileResult, n int, ro rewrite.Options) (*project, error) {
	if len(files) == 0 {
		return nil, errors.New("smoke: no compose file")
	}
	if n <= 0 || n > len(files) {
		n = len(files)
	}
	p := &project{}
	for _, f := range files[:n] {
		p.inputs = append(p.inputs, rewrite.Input{Path: f.Path, Data: f.After})
	}
	cp, err := compose.Load(ctx, p.inputs, compose.LoadOptions{Env: ro.Env, ProjectDir: ro.ProjectDir, EnvFiles: ro.EnvFiles,
		Profiles: ro.Profiles, ReadFile: compose.Overlay(files, ro.ReadFile)})
	if err != nil {
		return nil, fmt.Errorf("smoke: loading the migrated project: %w", err)
	}
	p.dir = cp.Model.WorkingDir
	for _, name := range slices.Sorted(maps.Keys(cp.Model.Services)) {
		// The container environment as docker compose hands it over:
		// environment: over env_file:, interpolated, read through the
		// overlay (compose-go's own view of env_file is the disk's).
		s := service{name: name, env: map[string]string{}}
		for _, v := range cp.ServiceEnv(name) {
			s.env[v.Key] = v.Value
		}
		for _, v := range cp.Model.Services[name].Volumes {
			if v.Type != types.VolumeTypeVolume && v.Type != types.VolumeTypeBind {
				continue
			}
			s.mounts = append(s.mounts, mount{source: v.Source, target: path.Clean(v.Target), bind: v.Type == types.VolumeTypeBind})
		}
		p.services = append(p.services, s)
	}
	return p, nil
}

// sameSource reports whether a client mount's source is the database's
// socket volume v (DBInfo.Volume: a volume name, or a bind source that may
// be relative to the project directory).
func (p *project) sameSource(m mount, v string) bool {
	if !m.bind {
		return m.source == v
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(p.dir, v)
	}
	return filepath.Clean(m.source) == filepath.Clean(v)
}

// withVolumes fills each database's socket volume from its own mounts (the
// one at its socket directory) when DBInfo leaves it empty, as Revert's
// analysis of an already migrated project does.
func (p *project) withVolumes(dbs []rewrite.DBInfo) []rewrite.DBInfo {
	out := append([]rewrite.DBInfo(nil), dbs...)
	for i, db := range out {
		if db.Volume != "" {
			continue
		}
		for _, s := range p.services {
			if s.name != db.Service {
				continue
			}
			for _, m := range s.mounts {
				if m.target == path.Clean(db.SocketDir) {
					out[i].Volume = m.source
				}
			}
		}
	}
	return out
}
