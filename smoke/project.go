package smoke

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/compose-spec/compose-go/v2/dotenv"
	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"

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

// overlayRead reads path from files when one of them has that path (the
// migrated content, which may not be on disk yet), else from disk, or
// through next when set.
func overlayRead(files []rewrite.FileResult, next func(string) ([]byte, error)) func(string) ([]byte, error) {
	byPath := map[string][]byte{}
	for _, f := range files {
		if abs, err := filepath.Abs(f.Path); err == nil {
			byPath[abs] = f.After
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
		return os.ReadFile(p)
	}
}

// loadProject loads the first n files (the compose files, in -f order)
// with compose-go from their migrated bytes. The other files (env files the
// migration rewrote) are read from files instead of the disk, both for
// interpolation (.env, --env-file) and for services' env_file.
func loadProject(ctx context.Context, files []rewrite.FileResult, n int, ro rewrite.Options) (*project, error) {
	if len(files) == 0 {
		return nil, errors.New("smoke: no compose file")
	}
	if n <= 0 || n > len(files) {
		n = len(files)
	}
	read := overlayRead(files, ro.ReadFile)
	p := &project{}
	for _, f := range files[:n] {
		p.inputs = append(p.inputs, rewrite.Input{Path: f.Path, Data: f.After})
	}
	dir := filepath.Dir(files[0].Path)
	if ro.ProjectDir != "" {
		dir = ro.ProjectDir
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p.dir = dir
	env, err := interpolationEnv(dir, ro, read)
	if err != nil {
		return nil, err
	}
	details := types.ConfigDetails{WorkingDir: dir, Environment: env}
	for _, in := range p.inputs {
		abs, err := filepath.Abs(in.Path)
		if err != nil {
			return nil, err
		}
		details.ConfigFiles = append(details.ConfigFiles, types.ConfigFile{Filename: abs, Content: in.Data})
	}
	profiles := ro.Profiles
	if len(profiles) == 0 {
		profiles = []string{"*"}
	}
	model, err := loader.LoadWithContext(ctx, details, loader.WithProfiles(profiles), func(o *loader.Options) {
		o.SetProjectName("uds-smoke", true)
		o.ResolvePaths = true
		// env_file is resolved below, through the overlay: compose-go
		// would read the pre-migration file from disk.
		o.SkipResolveEnvironment = true
	})
	if err != nil {
		return nil, fmt.Errorf("smoke: loading the migrated project: %w", err)
	}
	names := make([]string, 0, len(model.Services))
	for name := range model.Services {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		svc := model.Services[name]
		s := service{name: name, env: map[string]string{}}
		for _, ef := range svc.EnvFiles {
			data, err := read(ef.Path)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) && !bool(ef.Required) {
					continue
				}
				return nil, fmt.Errorf("smoke: service %s: env file: %w", name, err)
			}
			vars := map[string]string{}
			lookup := func(k string) (string, bool) {
				if v, ok := vars[k]; ok {
					return v, true
				}
				v, ok := env[k]
				return v, ok
			}
			if err := dotenv.ParseWithFormat(bytes.NewReader(data), ef.Path, vars, lookup, ef.Format); err != nil {
				return nil, fmt.Errorf("smoke: service %s: %w", name, err)
			}
			for k, v := range vars {
				s.env[k] = v
			}
		}
		for k, v := range svc.Environment {
			switch {
			case v != nil:
				s.env[k] = *v
			default:
				// "KEY" without a value passes the variable through from
				// the environment compose runs in.
				if ev, ok := env[k]; ok {
					s.env[k] = ev
				}
			}
		}
		for _, v := range svc.Volumes {
			if v.Type != types.VolumeTypeVolume && v.Type != types.VolumeTypeBind {
				continue
			}
			s.mounts = append(s.mounts, mount{source: v.Source, target: path.Clean(v.Target), bind: v.Type == types.VolumeTypeBind})
		}
		p.services = append(p.services, s)
	}
	return p, nil
}

// interpolationEnv is compose's interpolation environment, built the way
// the migration builds it (rewrite.InterpolationEnv), reading through read.
func interpolationEnv(dir string, ro rewrite.Options, read func(string) ([]byte, error)) (map[string]string, error) {
	ro.ReadFile = read
	env, err := rewrite.InterpolationEnv(dir, ro)
	if err != nil {
		return nil, fmt.Errorf("smoke: %w", err)
	}
	return env, nil
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
