package compose

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/yamledit"
)

// SiblingFiles lists the compose files of dir (absolute paths, sorted)
// whatever their names: a YAML file (.yml, .yaml) with a top-level
// services: mapping that compose-go loads alone. Projects name their
// variants freely (realpython/dockerizing-django's production.yml beside
// docker-compose.yml, prod.yml, stack.yml, docker-compose-dev.yaml), and
// each is a project docker compose runs (-f FILE) with whatever env file it
// shares. A file compose-go refuses (a configuration file whose services:
// means something else, a fragment needing another file) is not one. Only
// dir is looked at, each file once read up to MaxFileSize: cheap enough
// for every run. Each candidate loads with opts' Env and ReadFile (nil:
// ReadRegular) and its own folder as project directory.
func SiblingFiles(ctx context.Context, dir string, opts LoadOptions) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	read := opts.ReadFile
	if read == nil {
		read = ReadRegular
	}
	var out []string
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".yml" && ext != ".yaml") {
			continue
		}
		f := filepath.Join(dir, e.Name())
		data, err := ReadRegular(f)
		if err != nil || !topServices.Match(data) {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
			continue
		}
		if _, svcs := yamledit.OwnKey(doc.Content[0], "services"); svcs == nil || yamledit.Deref(svcs).Kind != yaml.MappingNode {
			continue
		}
		lo := LoadOptions{Env: opts.Env, ReadFile: read}
		if _, err := Load(ctx, []Input{{Path: f, Data: data}}, lo); err != nil {
			continue
		}
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// topServices finds a top-level services: key before the YAML is parsed.
var topServices = regexp.MustCompile(`(?m)^services\s*:`)
