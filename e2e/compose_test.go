package e2e

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/uds-migrate/uds-migrate/catalog"
)

// extract writes a golden archive into dir the way the expected state looks
// after the tool ran: the input files at the root, then every want/X file
// written over X. It returns the directories (relative; "." for the root)
// of the expected compose files (want/**/compose.yml, docker-compose.yml):
// one per project the golden migrates.
func extract(ar *txtar.Archive, dir string, transform func(name string, data []byte) []byte) ([]string, error) {
	var projects []string
	write := func(name string, data []byte) error {
		if !filepath.IsLocal(name) {
			return fmt.Errorf("archive file %q escapes the directory", name)
		}
		if transform != nil {
			data = transform(name, data)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "want/") {
			if err := write(f.Name, f.Data); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "want/"); ok {
			if base := filepath.Base(name); base == "compose.yml" || base == "docker-compose.yml" {
				projects = append(projects, filepath.Dir(name))
			}
			if err := write(name, f.Data); err != nil {
				return nil, err
			}
		}
	}
	// A root compose.yml whose includes the migration changed (the root
	// itself unchanged) is a project too.
	if len(projects) > 0 && !slices.Contains(projects, ".") {
		for _, f := range ar.Files {
			if f.Name == "compose.yml" {
				projects = append([]string{"."}, projects...)
			}
		}
	}
	return projects, nil
}

// loadProject loads dir/compose.yml (plus compose.override.yml when present,
// as `docker compose` does without -f) with compose-go: .env in dir for
// interpolation (not this process's environment, so results do not depend
// on the machine), every profile enabled, env_file resolved into
// environment. `$$` comes out as `$`, exactly as the container sees it.
func loadProject(ctx context.Context, dir string) (*types.Project, error) {
	return loadFiles(ctx, dir, fileSets(dir)[0])
}

// fileSets lists the combinations of compose files a project in dir is run
// as, names relative to dir: first what `docker compose` reads without -f
// (compose.yml or docker-compose.yml, plus compose.override.yml when
// present); then, when the folder holds overrides, the base alone and the
// base with each override (compose.override.yml, compose.*.yml,
// docker-compose.*.yml), as `docker compose -f BASE -f OVERRIDE` runs it.
func fileSets(dir string) [][]string {
	base := "compose.yml"
	if _, err := os.Stat(filepath.Join(dir, base)); err != nil {
		base = "docker-compose.yml"
	}
	def := []string{base}
	if _, err := os.Stat(filepath.Join(dir, "compose.override.yml")); err == nil {
		def = append(def, "compose.override.yml")
	}
	sets := [][]string{def}
	var overrides []string
	for _, pat := range []string{"compose.*.yml", "compose.*.yaml", "docker-compose.*.yml", "docker-compose.*.yaml"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, f := range m {
			overrides = append(overrides, filepath.Base(f))
		}
	}
	if len(overrides) == 0 {
		return sets
	}
	if len(def) > 1 {
		sets = append(sets, []string{base})
	}
	for _, o := range overrides {
		if s := []string{base, o}; !slices.Equal(s, def) {
			sets = append(sets, s)
		}
	}
	return sets
}

// loadFiles loads the named compose files of dir as loadProject does.
func loadFiles(ctx context.Context, dir string, names []string) (*types.Project, error) {
	var files []string
	for _, n := range names {
		files = append(files, filepath.Join(dir, n))
	}
	opts, err := cli.NewProjectOptions(files,
		cli.WithWorkingDirectory(dir),
		cli.WithName("e2e"),
		cli.WithEnvFiles(),
		cli.WithDotEnv,
		cli.WithProfiles([]string{"*"}),
	)
	if err != nil {
		return nil, err
	}
	return opts.LoadProject(ctx)
}

// dbService is a PostgreSQL server container as this test reads it.
type dbService struct {
	name string
	// socketDir is where the server creates its socket inside the
	// container; port names the socket file .s.PGSQL.<port>.
	socketDir string
	port      int
	svc       types.ServiceConfig
}

// imageFamily classifies an image reference: the catalogue's server family
// (catalog/images/*.yaml with a server: block whose socket the tool sets
// up), "pgbouncer" for Bitnami's PgBouncer, which the checks stand in for a
// server, or "".
func imageFamily(image string) string {
	if repo, _ := catalog.Split(image); repo == "bitnami/pgbouncer" || repo == "bitnamilegacy/pgbouncer" {
		return "pgbouncer"
	}
	if e := catalog.LookupServer(image); e != nil && e.Server.No == "" {
		return e.Family
	}
	return ""
}

// findDBs returns the project's PostgreSQL services, with the socket
// directory and port each one's server uses (the catalogue's socket_dir
// and port_env; FACTS.md, "PostgreSQL containers"): the official image uses
// /var/run/postgresql, Bitnami /tmp; `-c unix_socket_directories=` in the
// command overrides either. The port comes from `-c port=N`, `-p N`, the
// image's port variable ($PGPORT, Bitnami's $POSTGRESQL_PORT_NUMBER), else
// 5432.
func findDBs(p *types.Project) []dbService {
	var dbs []dbService
	for _, name := range p.ServiceNames() {
		svc := p.Services[name]
		fam := imageFamily(svc.Image)
		if fam == "pgbouncer" {
			dbs = append(dbs, bitnamiPooler(name, svc))
			continue
		}
		if fam == "" {
			continue
		}
		srv := catalog.LookupServer(svc.Image).Server
		db := dbService{name: name, socketDir: srv.SocketDir, port: 5432, svc: svc}
		portEnv := srv.PortEnv
		if portEnv == "" {
			portEnv = "PGPORT" // postgres reads it itself
		}
		if v := envValue(svc, portEnv); v != "" {
			db.port, _ = strconv.Atoi(v)
		}
		var args []string // a shell-form wrapper (sh -c "exec ... postgres -p N") is one argument
		for _, a := range append(append([]string{}, svc.Entrypoint...), svc.Command...) {
			args = append(args, strings.Fields(a)...)
		}
		for i, a := range args {
			next := ""
			if i+1 < len(args) {
				next = args[i+1]
			}
			setting := ""
			switch {
			case a == "-c":
				setting = next
			case strings.HasPrefix(a, "-c"):
				setting = strings.TrimPrefix(a, "-c")
			case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
				setting = strings.TrimPrefix(a, "--")
			case a == "-p":
				db.port, _ = strconv.Atoi(next)
			}
			key, val, ok := strings.Cut(setting, "=")
			switch strings.ReplaceAll(strings.TrimSpace(key), "-", "_") {
			case "port":
				if ok {
					db.port, _ = strconv.Atoi(strings.Trim(val, `'"`))
				}
			case "unix_socket_directories":
				if ok {
					first, _, _ := strings.Cut(strings.Trim(val, `'"`), ",")
					db.socketDir = strings.TrimSpace(first)
				}
			}
		}
		dbs = append(dbs, db)
	}
	return dbs
}

// bitnamiPooler stands a bitnami/pgbouncer service in for a server: it
// speaks the protocol on unix_socket_dir/.s.PGSQL.<listen_port>, set from
// PGBOUNCER_SOCKET_DIR (default /tmp) and PGBOUNCER_PORT (default 6432) by
// the image's libpgbouncer.sh (bitnami/containers, bitnami/pgbouncer
// README). The probe reaches the real server through that file name, so a
// client value that lost the pooler's port fails.
func bitnamiPooler(name string, svc types.ServiceConfig) dbService {
	db := dbService{name: name, socketDir: "/tmp", port: 6432, svc: svc}
	if v := envValue(svc, "PGBOUNCER_SOCKET_DIR"); v != "" {
		db.socketDir = v
	}
	if v := envValue(svc, "PGBOUNCER_PORT"); v != "" {
		db.port, _ = strconv.Atoi(v)
	}
	return db
}

func envValue(svc types.ServiceConfig, key string) string {
	if v := svc.Environment[key]; v != nil {
		return *v
	}
	return ""
}

// mountAt returns the service's volume or bind mount whose container path is
// dir.
func mountAt(svc types.ServiceConfig, dir string) (types.ServiceVolumeConfig, bool) {
	for _, m := range svc.Volumes {
		if (m.Type == types.VolumeTypeVolume || m.Type == types.VolumeTypeBind) && path.Clean(m.Target) == path.Clean(dir) {
			return m, true
		}
	}
	return types.ServiceVolumeConfig{}, false
}

// sameStorage reports whether two mounts share the same storage: the same
// named volume, or the same host directory.
func sameStorage(a, b types.ServiceVolumeConfig) bool {
	return a.Type == b.Type && a.Source != "" && a.Source == b.Source
}
