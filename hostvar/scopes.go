package hostvar

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/internal/confine"
	"github.com/uds-migrate/uds-migrate/internal/dockerfile"
)

// Scopes are what evidence readers may look at for each service of a
// project (evidence.Scope): the files that reach its container, walked
// once per service, read through read.
type Scopes struct {
	p      *compose.Project
	read   func(path string) ([]byte, error) // a file as reports show its path
	refuse func(path string, err error)      // a file left unread: it leads out of the project
	root   string                            // evidenceRoot, once found
	repo   bool                              // root holds a .git: the repository's top
	files  map[string][]string               // the files reaching each service
	// builders are the project's build manifests that make a container
	// image (evidence.BuiltImages), found once: manifest -> images.
	builders map[string][]string
	// rootFiles is the walk of the evidence root, made once (buildFiles).
	rootFiles []string
}

// NewScopes returns the scopes of p's services; read reads a file as
// reports show its path, refuse is told of a file left unread because it
// leads out of the project.
func NewScopes(p *compose.Project, read func(string) ([]byte, error), refuse func(string, error)) *Scopes {
	return &Scopes{p: p, read: read, refuse: refuse, files: map[string][]string{}}
}

// Reuse takes the walks o, scopes of the same project, has made already.
func (sc *Scopes) Reuse(o *Scopes) {
	sc.root, sc.repo, sc.files = o.root, o.repo, o.files
}

// ReachingFiles lists the project's files and directories (absolute) that
// reach a service's container: the COPY/ADD sources of a Dockerfile built
// here (its own build:, or that of the service of the project that builds
// the very image it runs: compose.ImageBuild), bind-mount sources, file-based configs: and secrets:. Paths outside the
// project directory are left out: they are not the project's to read.
func (sc *Scopes) ReachingFiles(service string) []string {
	svc := sc.p.Model.Services[service]
	var out []string
	if b, _ := compose.ImageBuild(sc.p, service); b != nil {
		out = append(out, sc.copySources(b.Context, b.Dockerfile, b.Target)...)
	} else if svc.Image != "" {
		out = append(out, sc.ImageBuilders(svc.Image)...)
	}
	return append(out, sc.mountedFiles(service)...)
}

// ThroughBuild says, for evidence at file (as reports show it: relative
// to the service's evidence root or the project directory, or absolute),
// how it reaches a service that runs the image another service of the
// project builds (compose.ImageBuild): "the build of uwsgi, which
// makes the image celerybeat runs (defectdojo/defectdojo-django:latest)".
// "" when the service builds its own image or runs none built here, and
// for a file that reaches it otherwise (its own bind mount) or that the
// build does not copy into the image.
func (sc *Scopes) ThroughBuild(service, file string) string {
	b, builder := compose.ImageBuild(sc.p, service)
	if b == nil || builder == "" || file == "" {
		return ""
	}
	cands := []string{file}
	if !filepath.IsAbs(file) {
		cands = []string{filepath.Join(sc.serviceEvidenceRoot(service), filepath.FromSlash(file)), filepath.Join(sc.p.Model.WorkingDir, filepath.FromSlash(file))}
	}
	under := func(roots []string, p string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return confine.Within(r, p) })
	}
	built, own := sc.copySources(b.Context, b.Dockerfile, b.Target), sc.mountedFiles(service)
	for _, f := range cands {
		if under(own, f) {
			return ""
		}
	}
	for _, f := range cands {
		if under(built, f) {
			return fmt.Sprintf("the build of %s, which makes the image %s runs (%s)", builder, service, sc.p.Model.Services[service].Image)
		}
	}
	return ""
}

// mountedFiles are the files and directories (absolute) that reach a
// service's container besides its image: bind-mount sources, file-based
// configs: and secrets:.
func (sc *Scopes) mountedFiles(service string) []string {
	svc := sc.p.Model.Services[service]
	var out []string
	for _, v := range svc.Volumes {
		if v.Type == "bind" && v.Source != "" {
			out = append(out, v.Source)
		}
	}
	for _, c := range svc.Configs {
		if cfg, ok := sc.p.Model.Configs[c.Source]; ok && cfg.File != "" {
			out = append(out, cfg.File)
		}
	}
	secrets := sc.SecretFiles(service)
	return append(out, slices.Sorted(maps.Keys(secrets))...)
}

// ImageBuilders returns the project's build manifests (absolute) that
// say their build produces image (jib's <to><image>, Spring Boot's
// build-image name; evidence.BuiltImages): a service that runs it without
// a build: of its own runs what that manifest built, so the manifest
// reaches its container as a build context's would (UDS135 reads its
// dependencies). Manifests are looked for under the evidence root.
func (sc *Scopes) ImageBuilders(image string) []string {
	if sc.builders == nil {
		sc.builders = map[string][]string{}
		// Outside a repository the evidence root is the compose file's
		// folder, while a build tool's compose files often sit below the
		// module (JHipster's src/main/docker/app.yml under pom.xml): the
		// manifests of a few parent folders count too (buildFiles), each
		// only for the image it names.
		for _, f := range sc.buildFiles(func(base string) bool { return slices.Contains(evidence.ImageBuilders, base) }) {
			if data, err := sc.readBuildFile(f); err == nil {
				if imgs := evidence.BuiltImages(filepath.Base(f), data); len(imgs) > 0 {
					sc.builders[f] = imgs
				}
			}
		}
	}
	var out []string
	for _, f := range slices.Sorted(maps.Keys(sc.builders)) {
		if slices.ContainsFunc(sc.builders[f], func(b string) bool { return evidence.SameRepository(b, image) }) {
			out = append(out, f)
		}
	}
	return out
}

// RepositoryDeclares looks at the build manifests (base names) anywhere
// under the evidence root, the repository that holds the project, build
// scripts among them (buildScript): it returns, as reports show their
// paths, those that name driver (pgjdbc's group, "org.postgresql") but not
// marker ("junixsocket"), and whether any file there names driver at all.
// A jar whose name holds marker in the repository ships the library:
// nothing lacks it. Why: a compose file that runs a published image often
// sits in the repository that builds that image (Dependency-Track's
// dev/compose.yaml beside apiserver/pom.xml), so the repository's own
// Java build says what the image ships even when no manifest reaches the
// service; with several builds (pom.xml beside build.gradle, the Maven one
// the documented build) the image may come from any, so each that uses
// the driver must declare the library.
func (sc *Scopes) RepositoryDeclares(manifests []string, driver, marker string) (lacking []string, usesDriver bool) {
	build := func(base string) bool {
		return slices.Contains(manifests, base) || buildScript(base) || strings.HasSuffix(base, ".jar")
	}
	for _, f := range sc.buildFiles(build) {
		base := filepath.Base(f)
		if strings.HasSuffix(base, ".jar") {
			if strings.Contains(base, marker) {
				return nil, true
			}
			continue
		}
		data, err := sc.readBuildFile(f)
		if err != nil || !bytes.Contains(data, []byte(driver)) {
			continue
		}
		usesDriver = true
		if !bytes.Contains(data, []byte(marker)) {
			lacking = append(lacking, sc.p.DisplayPath(f))
		}
	}
	return lacking, usesDriver
}

// buildFiles returns the files under the evidence root whose base name
// accept takes, in walk order, and, outside a repository (an unpacked
// archive, a folder of compose files below a module), those of up to
// maxBuilderParents parent folders. The root's walk is made once and
// shared by every caller (ImageBuilders, RepositoryDeclares).
func (sc *Scopes) buildFiles(accept func(base string) bool) []string {
	root := sc.evidenceRoot()
	if sc.rootFiles == nil {
		all := evidence.Scope{ProjectDir: root, Roots: []string{root}, Read: func(p string) ([]byte, error) { return sc.read(sc.p.DisplayPath(p)) }}
		sc.rootFiles = append([]string{}, all.Files()...)
	}
	var out []string
	for _, f := range sc.rootFiles {
		if accept(filepath.Base(f)) {
			out = append(out, f)
		}
	}
	if root != sc.p.Model.WorkingDir {
		return out
	}
	for d, i := filepath.Dir(root), 0; i < maxBuilderParents && d != filepath.Dir(d); d, i = filepath.Dir(d), i+1 {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			f := filepath.Join(d, e.Name())
			if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() && fi.Size() <= evidence.MaxFileSize && accept(e.Name()) {
				out = append(out, f)
			}
		}
	}
	return out
}

// readBuildFile reads a file buildFiles returned: one under the evidence
// root confined to it (no symlink leads out), a parent folder's as reports
// show its path.
func (sc *Scopes) readBuildFile(f string) ([]byte, error) {
	root := sc.evidenceRoot()
	if confine.Within(root, f) {
		return evidence.Scope{ProjectDir: root, Read: func(p string) ([]byte, error) { return sc.read(sc.p.DisplayPath(p)) }}.ReadFile(f)
	}
	return sc.read(sc.p.DisplayPath(f))
}

// buildScript reports whether a file's base name is a Dockerfile or a shell
// script: images built without a Java manifest fetch their jars there
// (camunda/docker-camunda-bpm-platform's download.sh copies
// org.postgresql:postgresql, and nothing else, into /camunda/lib).
func buildScript(base string) bool {
	return strings.HasPrefix(base, "Dockerfile") || strings.HasSuffix(base, ".Dockerfile") || strings.HasSuffix(base, ".sh")
}

// maxBuilderParents bounds how many folders above a compose file outside
// a repository are looked at for a manifest that builds its images.
const maxBuilderParents = 4

// SecretFiles maps the files of the compose secrets a service reads
// (secrets: NAME, file: ./secrets/x.txt) to the variable that names the
// secret's path in the container (DATABASE_URL_FILE=/run/secrets/NAME), or
// to "secret NAME" when no variable does.
func (sc *Scopes) SecretFiles(service string) map[string]string {
	svc := sc.p.Model.Services[service]
	out := map[string]string{}
	for _, ref := range svc.Secrets {
		sec, ok := sc.p.Model.Secrets[ref.Source]
		if !ok || sec.File == "" {
			continue
		}
		target := ref.Target
		if target == "" {
			target = ref.Source
		}
		if !strings.HasPrefix(target, "/") {
			target = "/run/secrets/" + target
		}
		key := "secret " + ref.Source
		for k, v := range svc.Environment {
			if v != nil && *v == target {
				key = k
			}
		}
		out[sec.File] = key
	}
	return out
}

// copySources reads the Dockerfile of a build context and returns the
// sources (absolute) whose files reach the image of stage target: those
// the stages it is built from take from the context (ImageSources: a
// builder stage's COPY . . counts only for what the final stage copies
// from it, turbo prune for the workspaces it keeps), else, when the
// Dockerfile holds what that cannot follow, every COPY/ADD source.
func (sc *Scopes) copySources(context, df, target string) []string {
	if context == "" {
		return nil
	}
	data, err := sc.read(sc.p.DisplayPath(dockerfile.Path(context, df)))
	if err != nil {
		return nil
	}
	srcs, ok := dockerfile.ImageSources(data, target, sc.buildContext(context))
	if !ok {
		srcs = dockerfile.CopySources(data)
	}
	var out []string
	for _, s := range srcs {
		m, _ := filepath.Glob(filepath.Join(context, filepath.FromSlash(s)))
		out = append(out, m...)
	}
	return out
}

// buildContext answers ImageSources' questions about a build context
// (absolute) from its files, none read outside it.
func (sc *Scopes) buildContext(context string) dockerfile.Context {
	abs := func(rel string) (string, bool) {
		p := filepath.Join(context, filepath.FromSlash(rel))
		return p, confine.Check(context, p) == nil
	}
	read := func(rel string) ([]byte, error) {
		p, ok := abs(rel)
		if !ok {
			return nil, fs.ErrPermission
		}
		return sc.read(sc.p.DisplayPath(p))
	}
	return dockerfile.Context{
		Stat: func(rel string) (bool, bool) {
			p, ok := abs(rel)
			if !ok {
				return false, false
			}
			fi, err := os.Stat(p)
			return err == nil && fi.IsDir(), err == nil
		},
		Pruned: func(scopes []string) ([]string, bool) {
			return dockerfile.TurboPruned(scopes, read, func(pattern string) []string {
				if strings.Contains(pattern, "**") {
					return nil // a walk of the whole tree (node_modules): the workspace stays unknown
				}
				var out []string
				dirs, _ := doublestar.Glob(os.DirFS(context), pattern, doublestar.WithNoFollow())
				for _, d := range dirs {
					if fi, err := os.Stat(filepath.Join(context, filepath.FromSlash(d))); err == nil && fi.IsDir() {
						out = append(out, d)
					}
				}
				return out
			})
		},
	}
}

// evidenceRoot is the directory whose files evidence may come from: the
// repository that holds the project directory (its nearest parent with a
// .git), so that a build context above the compose file's folder
// (context: .., as docker builds it) counts; without a repository, the
// project directory itself.
func (sc *Scopes) evidenceRoot() string {
	if sc.root != "" {
		return sc.root
	}
	dir := sc.p.Model.WorkingDir
	root := dir
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root, sc.repo = d, true
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	sc.root = root
	return root
}

// serviceEvidenceRoot is evidenceRoot widened, for a service built here,
// to the nearest directory that also holds its build context: docker sends
// that context to the builder whatever the repository layout (context: ..,
// or ../api beside the compose folder, with or without a .git), so the code
// it copies is the service's own. A context whose common directory with the
// project is the filesystem root (an unrelated tree) does not widen it.
//
// Outside a repository it is widened too to a bind-mount source that
// holds the compose file's folder (mountedTree): a devcontainer's
// ../:/workspace brings the very tree the compose file sits in, so its
// code is the service's own, as a build context's is. In a repository the
// root is the repository's top already, and a mount above it is not read.
func (sc *Scopes) serviceEvidenceRoot(service string) string {
	root := sc.evidenceRoot()
	if !sc.repo {
		if t := mountedTree(sc.p.Model.Services[service].Volumes, root); t != "" {
			root = t
		}
	}
	svc := sc.p.Model.Services[service]
	b, _ := compose.ImageBuild(sc.p, service)
	if b == nil && svc.Image != "" {
		// A manifest above the root that builds the service's image
		// (imageBuilders) is the service's build: its folder holds the root.
		for _, f := range sc.ImageBuilders(svc.Image) {
			if d := filepath.Dir(f); !confine.Within(root, f) && confine.Within(d, root) {
				root = d
			}
		}
		return root
	}
	if b == nil || !filepath.IsAbs(b.Context) || confine.Within(root, b.Context) {
		return root
	}
	common := filepath.Clean(b.Context)
	for !confine.Within(common, root) {
		common = filepath.Dir(common)
	}
	if filepath.Dir(common) == common {
		return root
	}
	return common
}

// mountedTree returns, outside a repository, the part of a bind-mounted
// tree above dir (the compose file's folder) that is the project's: the
// mount source that holds dir (../, ../..), at most maxBuilderParents
// folders up, cut at the nearest folder above dir that looks like the top
// of a repository (repositoryTop). A devcontainer's ../.. (VS Code's
// default, the folder above the repository) brings the repository in
// with its neighbours: the repository counts, the neighbours do not. ""
// when no mount holds dir or no folder up to the mount looks like a
// repository's top (nothing says where the project ends). The filesystem
// root, the user's home and the folders above it never count: mounting
// them says nothing about the project (a /:/host or ~:/root mount).
func mountedTree(vols []types.ServiceVolumeConfig, dir string) string {
	home, _ := os.UserHomeDir()
	best := ""
	for _, v := range vols {
		src := filepath.Clean(v.Source)
		if v.Type != types.VolumeTypeBind || !filepath.IsAbs(src) || src == dir || !confine.Within(src, dir) {
			continue
		}
		if filepath.Dir(src) == src || (home != "" && confine.Within(src, filepath.Clean(home))) {
			continue
		}
		up := 0
		for d := dir; d != src; d = filepath.Dir(d) {
			up++
		}
		if up <= maxBuilderParents && (best == "" || confine.Within(src, best)) {
			best = src
		}
	}
	if best == "" {
		return ""
	}
	for d := filepath.Dir(dir); confine.Within(best, d); d = filepath.Dir(d) {
		if repositoryTop(d) {
			return d
		}
	}
	return ""
}

// topFiles are what a repository keeps at its top (GitHub's folder, git's
// settings, the licence, the readme) or a dependency manifest of the
// code it holds: the nearest folder that has one is where a project
// unpacked without its .git begins.
var topFiles = []string{".github", ".gitignore", ".gitattributes", "LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING", "README", "README.md", "README.rst",
	"package.json", "go.mod", "Cargo.toml", "pyproject.toml", "requirements.txt", "setup.py", "Gemfile", "mix.exs", "composer.json", "pom.xml", "build.gradle", "build.gradle.kts"}

// repositoryTop reports whether folder d holds one of topFiles.
func repositoryTop(d string) bool {
	for _, f := range topFiles {
		if _, err := os.Lstat(filepath.Join(d, f)); err == nil {
			return true
		}
	}
	return false
}

// Of is what evidence readers may look at for a service.
func (sc *Scopes) Of(service string) evidence.Scope {
	env := map[string]string{}
	for _, v := range sc.p.ServiceEnv(service) {
		env[v.Key] = v.Value
	}
	s := evidence.Scope{
		ProjectDir: sc.serviceEvidenceRoot(service),
		Roots:      sc.ReachingFiles(service),
		Env:        env,
		Read:       func(p string) ([]byte, error) { return sc.read(sc.p.DisplayPath(p)) },
		Refused:    sc.refuse,
	}
	// The walk is done once per service: several readers ask for it.
	list, ok := sc.files[service]
	if !ok {
		list = []string{}
		ignored, buildOnly := sc.imageIgnored(service), sc.buildStageOnly(service)
		for _, f := range s.Files() {
			if !ignored(f) && !buildOnly(f) {
				list = append(list, f)
			}
		}
		sc.files[service] = list
	}
	s.List = list
	return s
}

// imageIgnored returns a predicate for the files (absolute) that reach a
// service only through its build context and that the context's
// .dockerignore leaves out of the image: the container never sees them.
// A file that a bind mount, a config or a secret also brings in is seen.
func (sc *Scopes) imageIgnored(service string) func(path string) bool {
	b, _ := compose.ImageBuild(sc.p, service)
	if b == nil || b.Context == "" {
		return func(string) bool { return false }
	}
	var data []byte
	err := fs.ErrNotExist
	for _, f := range dockerfile.IgnoreFiles(b.Context, b.Dockerfile) {
		if data, err = sc.read(sc.p.DisplayPath(f)); err == nil {
			break
		}
	}
	if err != nil {
		return func(string) bool { return false }
	}
	ignored := dockerfile.Ignorer(data, b.Context)
	seen := sc.mountedFiles(service)
	return func(path string) bool {
		if !confine.Within(b.Context, path) || slices.ContainsFunc(seen, func(src string) bool { return confine.Within(src, path) }) {
			return false
		}
		return ignored(path)
	}
}
