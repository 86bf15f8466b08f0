package hostvar

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/internal/confine"
	"github.com/uds-migrate/uds-migrate/internal/dockerfile"
)

// buildStageOnly returns a predicate for the files (absolute) that reach a
// service's image only as what a build step made of them, not as the files
// themselves (dockerfile.ImageSourcesByKind: wakapi copies its tree into
// build-env and runs a distroless stage that takes only /staging from
// it), and that are no build input (BuildInput): a script or configuration
// file there is never run or read by the container, so it is no evidence
// of what the container does. A file a bind mount, a config or a secret also brings in
// is seen. Where the Dockerfile does not say, nothing is left out.
func (sc *Scopes) buildStageOnly(service string) func(path string) bool {
	none := func(string) bool { return false }
	b := sc.p.Model.Services[service].Build
	if b == nil || b.Context == "" {
		return none
	}
	data, err := sc.read(sc.p.DisplayPath(dockerfile.Path(b.Context, b.Dockerfile)))
	if err != nil {
		return none
	}
	kept, only, ok := dockerfile.ImageSourcesByKind(data, b.Target, sc.buildContext(b.Context))
	if !ok || len(only) == 0 {
		return none
	}
	abs := func(srcs []string) []string {
		var out []string
		for _, s := range srcs {
			m, _ := filepath.Glob(filepath.Join(b.Context, filepath.FromSlash(s)))
			out = append(out, m...)
		}
		return out
	}
	keptAbs, onlyAbs, seen := abs(kept), abs(only), sc.mountedFiles(service)
	under := func(roots []string, p string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return confine.Within(r, p) })
	}
	return func(p string) bool {
		if !under(onlyAbs, p) || under(keptAbs, p) || under(seen, p) {
			return false
		}
		rel, err := filepath.Rel(b.Context, p)
		return err == nil && !BuildInput(filepath.ToSlash(rel))
	}
}

// BuildInput reports whether a file of a build context (rel: its
// slash-separated path there) says something about the image a build
// stage makes even when the image does not hold the file itself: a
// dependency manifest (go.mod, package.json, pom.xml: the libraries the
// binary links), the source code the stage compiles or bundles (its
// reads of variables are the binary's), and a JVM project's resources
// (src/main/resources/application.properties is packed into the jar). A
// shell script, a Dockerfile and a configuration file (YAML, JSON, TOML,
// .env ...) are not: the container runs or reads them only if it holds
// them.
func BuildInput(rel string) bool {
	if consumer.IsManifest(rel) || strings.Contains("/"+rel, "/src/main/resources/") {
		return true
	}
	return slices.Contains(codeExts, strings.ToLower(path.Ext(rel)))
}

// codeExts are program source files: compiled, bundled or packaged into
// what a build stage makes (shell scripts are run, not built: not here).
var codeExts = []string{
	".go", ".rs", ".c", ".cc", ".cpp", ".h", ".zig", ".swift", ".cr", ".dart", ".hs",
	".java", ".kt", ".kts", ".scala", ".groovy", ".clj", ".cljs", ".cljc",
	".cs", ".fs", ".vb",
	".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte", ".prisma",
	".py", ".rb", ".php", ".ex", ".exs", ".erl",
}
