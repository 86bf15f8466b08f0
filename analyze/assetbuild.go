package analyze

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// A service that only runs a JavaScript asset build (esbuild, tailwindcss,
// webpack, vite, sass, or a package.json script running one of them) does
// not read the Rails database.yml that its bind-mounted source tree holds:
// trial 15, nickjj/docker-rails-example's js and css services (yarn build,
// yarn build:css over `.:/app`) got the socket mount, and under the
// official image's trust authentication that mount is a superuser login.

// jsTools are the asset build programs whose runs open no database.
var jsTools = map[string]bool{"esbuild": true, "tailwindcss": true, "webpack": true, "vite": true, "sass": true, "postcss": true, "rollup": true, "parcel": true}

// jsRunners run a package.json script (yarn build, npm run build:css).
var jsRunners = map[string]bool{"yarn": true, "npm": true, "pnpm": true, "bun": true}

// rubyCommands as a word of a package.json script mean it may start Ruby
// after all (a flag such as esbuild's --bundle is not one).
var rubyCommands = map[string]bool{"rails": true, "rake": true, "ruby": true, "bundle": true, "rackup": true, "puma": true, "sidekiq": true}

// startsApp reports whether a script's text runs a Ruby program
// (rubyCommands, a bin/ script) or another application (appCommands).
func startsApp(text string) bool {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '&' || r == ';' || r == '|' || r == '\t' }) {
		if rubyCommands[filepath.Base(w)] || appCommands[filepath.Base(w)] || strings.HasPrefix(w, "bin/") || strings.HasPrefix(w, "./bin/") {
			return true
		}
	}
	return false
}

// assetBuilds answers, over the collector's project, which services only
// run an asset build.
type assetBuilds struct{ cl *collector }

// only reports whether service's command (entrypoint and
// command, as compose gives them) is an asset build tool, directly or
// through a package.json script of the project whose text runs one and no
// Ruby. A command it cannot read that way is not one.
func (ab assetBuilds) only(service string) bool {
	cl := ab.cl
	svc, ok := cl.p.Model.Services[service]
	if !ok {
		return false
	}
	words := append(append([]string{}, svc.Entrypoint...), svc.Command...)
	if len(words) == 1 {
		words = strings.Fields(words[0])
	}
	if len(words) == 0 {
		return false
	}
	first := filepath.Base(words[0])
	if first == "npx" && len(words) > 1 {
		first = filepath.Base(words[1])
	}
	if jsTools[first] {
		return true
	}
	// A project script's function run directly (nickjj's docker-django-
	// example: command "../run yarn:build:js", whose yarn:build:js() runs
	// node esbuild.config.mjs; trial 19) is judged by its body.
	if isScriptPath(words[0]) && len(words) >= 2 {
		body, found := ab.shellFunction(service, words[0], words[1])
		return found && buildsAssetsOnly(body)
	}
	if !jsRunners[first] || len(words) < 2 {
		return false
	}
	script := words[1]
	if script == "run" && len(words) > 2 {
		script = words[2]
	}
	text, ok := ab.packageScript(service, script)
	if !ok {
		return false
	}
	// A script that calls a function of a project script (nickjj's
	// "build": "./run yarn:build", run's yarn:build() running esbuild) is
	// judged by that function's body.
	if f := strings.Fields(text); len(f) == 2 && (strings.HasPrefix(f[0], "./") || strings.HasPrefix(f[0], "bin/")) {
		body, found := ab.shellFunction(service, f[0], f[1])
		if !found {
			return false
		}
		text = body
	}
	return buildsAssetsOnly(text)
}

// isScriptPath reports whether a command's first word is a script of the
// project named by its path (./run, ../run, bin/build), not a program.
func isScriptPath(w string) bool {
	return strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") || strings.HasPrefix(w, "bin/")
}

// buildsAssetsOnly reports whether a script's text runs an asset build
// tool (esbuild, or node on esbuild.config.mjs) and no application
// program (Ruby, Python, Elixir, Java, PHP: startsApp).
func buildsAssetsOnly(text string) bool {
	if startsApp(text) {
		return false
	}
	for _, w := range strings.Fields(text) {
		base := filepath.Base(w)
		if jsTools[base] {
			return true
		}
		// node esbuild.config.mjs, vite.config.ts: the tool's own config
		// script, run by node.
		if tool, _, ok := strings.Cut(base, ".config."); ok && jsTools[tool] {
			return true
		}
	}
	return false
}

// appCommands as a word of a script mean it starts an application that
// may open a database (a Django manage.py, a Celery worker, a Phoenix
// server), so the script is not an asset build alone.
var appCommands = map[string]bool{"python": true, "python3": true, "manage.py": true, "gunicorn": true, "uvicorn": true, "celery": true, "flask": true, "mix": true, "iex": true, "elixir": true, "java": true, "php": true, "dotnet": true}

// shellFunction is the body of the shell function name (`name() {` up to
// a `}` alone at the start of a line) in the project script script (a
// path as package.json writes it, ./run), among the files reaching
// service; false when there is none.
func (ab assetBuilds) shellFunction(service, script, name string) (string, bool) {
	scope := ab.cl.scopes.Of(service)
	want := "/" + strings.TrimLeft(strings.TrimPrefix(script, "./"), "./")
	for _, abs := range scope.Files() {
		if !strings.HasSuffix(filepath.ToSlash(abs), want) {
			continue
		}
		data, err := scope.ReadFile(abs)
		if err != nil {
			continue
		}
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if strings.TrimSpace(l) != name+"() {" && strings.TrimSpace(l) != "function "+name+" {" {
				continue
			}
			var body []string
			for _, b := range lines[i+1:] {
				if strings.HasPrefix(b, "}") {
					return strings.Join(body, "\n"), true
				}
				body = append(body, b)
			}
		}
	}
	return "", false
}

// packageScript is the text of script in a package.json among the files
// reaching service (its build context or mounted source).
func (ab assetBuilds) packageScript(service, script string) (string, bool) {
	scope := ab.cl.scopes.Of(service)
	for _, abs := range scope.Files() {
		if filepath.Base(abs) != "package.json" || strings.Contains(filepath.ToSlash(abs), "/node_modules/") {
			continue
		}
		data, err := scope.ReadFile(abs)
		if err != nil {
			continue
		}
		var pkg struct {
			Scripts map[string]string `json:"scripts"`
		}
		if json.Unmarshal(data, &pkg) != nil {
			continue
		}
		if s, ok := pkg.Scripts[script]; ok {
			return s, true
		}
	}
	return "", false
}
