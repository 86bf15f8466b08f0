package rewrite

import (
	"path/filepath"

	"github.com/uds-migrate/uds-migrate/evidence"
)

// reachingFiles lists the project's files and directories (absolute) that
// reach a service's container: the COPY/ADD sources of a Dockerfile built
// here, bind-mount sources and file-based configs:. Paths outside the
// project directory are left out: they are not the project's to read.
func (pl *planner) reachingFiles(service string) []string {
	svc := pl.p.model.Services[service]
	var out []string
	if b := svc.Build; b != nil {
		out = append(out, pl.copySources(b.Context, b.Dockerfile)...)
	}
	for _, v := range svc.Volumes {
		if v.Type == "bind" && v.Source != "" {
			out = append(out, v.Source)
		}
	}
	for _, c := range svc.Configs {
		if cfg, ok := pl.p.model.Configs[c.Source]; ok && cfg.File != "" {
			out = append(out, cfg.File)
		}
	}
	return out
}

// copySources reads the Dockerfile of a build context and returns the
// sources its COPY/ADD instructions take from the context.
func (pl *planner) copySources(context, dockerfile string) []string {
	if context == "" {
		return nil
	}
	if dockerfile == "" {
		dockerfile = "Dockerfile"
	}
	if !filepath.IsAbs(dockerfile) {
		dockerfile = filepath.Join(context, dockerfile)
	}
	data, err := pl.readFile(pl.p.displayPath(dockerfile))
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range evidence.CopySources(data) {
		m, _ := filepath.Glob(filepath.Join(context, s))
		out = append(out, m...)
	}
	return out
}

// evidenceScope is what evidence readers may look at for a service.
func (pl *planner) evidenceScope(service string) evidence.Scope {
	env := map[string]string{}
	for _, v := range pl.p.serviceEnv(service) {
		env[v.key] = v.value
	}
	s := evidence.Scope{
		ProjectDir: pl.p.model.WorkingDir,
		Roots:      pl.reachingFiles(service),
		Env:        env,
		Read:       func(p string) ([]byte, error) { return pl.readFile(pl.p.displayPath(p)) },
	}
	// The walk is done once per service: several readers ask for it.
	if pl.configs.scopeFiles == nil {
		pl.configs.scopeFiles = map[string][]string{}
	}
	list, ok := pl.configs.scopeFiles[service]
	if !ok {
		list = s.Files()
		if list == nil {
			list = []string{}
		}
		pl.configs.scopeFiles[service] = list
	}
	s.List = list
	return s
}
