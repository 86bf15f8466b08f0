package hostvar

import (
	"bytes"
	"github.com/uds-migrate/uds-migrate/compose"
	"path"
	"path/filepath"
	"regexp"
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
	b, _ := compose.ImageBuild(sc.p, service)
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
	published := publishedContent(data, func(p string) ([]byte, error) { return sc.read(sc.p.DisplayPath(p)) })
	under := func(roots []string, p string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return confine.Within(r, p) })
	}
	return func(p string) bool {
		if !under(onlyAbs, p) || under(keptAbs, p) || under(seen, p) {
			return false
		}
		rel, err := filepath.Rel(b.Context, p)
		return err == nil && !BuildInput(filepath.ToSlash(rel)) && !published(p)
	}
}

// dotnetOutput matches a build step that writes a .NET project's output
// folder, content files included.
var dotnetOutput = regexp.MustCompile(`(?i)\bdotnet\s+(?:publish|build)\b`)

// projectArg matches a project file a dotnet command names.
var projectArg = regexp.MustCompile(`[^\s"'=]+\.csproj\b`)

// appSettings matches ASP.NET Core's configuration files by base name
// (appsettings.json, appsettings.Production.json).
var appSettings = regexp.MustCompile(`(?i)^appsettings(?:\.[^/\\]+)?\.json$`)

// publishedContent returns a predicate for the files (absolute) of a build
// context that a `dotnet publish` (or `dotnet build`) the Dockerfile runs
// copies into its output as themselves, so that an image taking that
// output (COPY --from=build /app ./) holds them: the appsettings*.json of a
// project whose .csproj, in the same folder, uses the Web SDK. Source:
// dotnet/sdk src/StaticWebAssetsSdk/Sdk/Sdk.StaticWebAssets.StaticAssets.ProjectSystem.props
// @ 00f19da (imported by Microsoft.NET.Sdk.Web): `<Content Include="**\*.json"
// CopyToOutputDirectory="PreserveNewest" CopyToPublishDirectory="PreserveNewest" .../>`.
// A plain Microsoft.NET.Sdk project copies a JSON file only when its
// .csproj says so (CopyToPublishDirectory or CopyToOutputDirectory next to
// the file's name), which counts too. When the command names project files
// (`dotnet publish Api/Api.csproj`), only those projects' settings count.
// read reads a file by absolute path.
func publishedContent(dockerfileText []byte, read func(string) ([]byte, error)) func(string) bool {
	if !dotnetOutput.Match(dockerfileText) {
		return func(string) bool { return false }
	}
	// `dotnet publish Api/Api.csproj` publishes that project only (with
	// none named, the one in its folder): another project's settings (a
	// test project's) stay out.
	var named []string
	for _, line := range strings.Split(string(dockerfileText), "\n") {
		if dotnetOutput.MatchString(line) {
			for _, m := range projectArg.FindAllString(line, -1) {
				named = append(named, path.Base(strings.ReplaceAll(m, `\`, "/")))
			}
		}
	}
	return func(p string) bool {
		base := filepath.Base(p)
		if !appSettings.MatchString(base) {
			return false
		}
		projects, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "*.csproj"))
		for _, proj := range projects {
			if len(named) > 0 && !slices.Contains(named, filepath.Base(proj)) {
				continue
			}
			data, err := read(proj)
			if err != nil {
				continue
			}
			if bytes.Contains(data, []byte(`Sdk="Microsoft.NET.Sdk.Web"`)) {
				return true
			}
			if copiedItem(data, base) {
				return true
			}
		}
		return false
	}
}

// copiedItem reports whether a project file's item for name (Include= or
// Update= "appsettings.json", a None or Content element) carries
// CopyToPublishDirectory or CopyToOutputDirectory other than Never.
func copiedItem(project []byte, name string) bool {
	text := string(project)
	for _, attr := range []string{`Include="`, `Update="`} {
		for rest := text; ; {
			i := strings.Index(rest, attr+name+`"`)
			if i < 0 {
				break
			}
			rest = rest[i+len(attr)+len(name)+1:]
			item := rest
			if gt := strings.IndexByte(item, '>'); gt > 0 && item[gt-1] == '/' {
				item = item[:gt] // <None Include="x" CopyTo...="..." />
			} else {
				// <None Include="x"><CopyTo...>v</CopyTo...></None>: up to
				// the element's closing tag, its children included
				end := len(item)
				for _, tag := range []string{"</None>", "</Content>"} {
					if i := strings.Index(item, tag); i >= 0 && i < end {
						end = i
					}
				}
				item = item[:end]
			}
			for _, m := range copyToItem.FindAllStringSubmatch(item, -1) {
				if !strings.EqualFold(m[1], "Never") {
					return true
				}
			}
		}
	}
	return false
}

// copyToItem matches the copy metadata of a project item, as an attribute
// (CopyToOutputDirectory="PreserveNewest") or an element.
var copyToItem = regexp.MustCompile(`CopyTo(?:Publish|Output)Directory(?:="|>)\s*(\w+)`)

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
	".ml", ".mli", ".re", ".rei", // OCaml and Reason (Dream's examples compile the URL into the binary)
}
