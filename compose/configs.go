package compose

import (
	"path"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// InlineConfigs lists the configs: a service mounts whose top-level entry
// gives the file's text inline (configs: NAME: content: |), each as the
// file it becomes in the container (ente's credentials_yaml, mounted at
// /credentials.yaml, holds museum's database settings). Compose
// interpolates content like any other value ($$ is $); Value is the text
// as compose computes it, Raw as written in YAML. An entry with file:,
// environment: or external: is not inline; secrets: take no content:
// (compose-spec, "secrets" top-level element: file or environment).
func InlineConfigs(p *Project, service string) []InlineConfig {
	svc, ok := p.Model.Services[service]
	if !ok {
		return nil
	}
	var out []InlineConfig
	for _, ref := range svc.Configs {
		cfg, ok := p.Model.Configs[ref.Source]
		if !ok || cfg.Content == "" || cfg.File != "" || cfg.Environment != "" || bool(cfg.External) {
			continue
		}
		target := ref.Target
		if target == "" {
			target = "/" + ref.Source // compose-spec: the default target is /<source>
		}
		src, kn, node := configContent(p, ref.Source)
		if node == nil {
			continue
		}
		out = append(out, InlineConfig{Service: service, Name: ref.Source, Target: path.Clean(target), Src: src, Node: node,
			Key: kn, Raw: node.Value, Value: cfg.Content})
	}
	return out
}

// InlineConfig is one inline config a service mounts (InlineConfigs).
type InlineConfig struct {
	Service, Name string
	Target        string     // the file's path in the container
	Src           *Source    // the compose file that writes content:
	Key, Node     *yaml.Node // content's key and its scalar
	Raw, Value    string
}

// Var is the config as a value of the service written in the compose file,
// for readers of configuration documents: Key is "configs.NAME", Pos its
// content's line.
func (c InlineConfig) Var() EnvVar {
	return EnvVar{Service: c.Service, Key: "configs." + c.Name, Raw: c.Raw, Value: c.Value, Src: c.Src, Node: c.Node,
		Pos: finding.Pos{File: c.Src.Path, Line: c.Node.Line, Col: c.Node.Column}}
}

// configContent finds configs.NAME.content in the last compose file that
// writes it (later -f files override earlier ones).
func configContent(p *Project, name string) (*Source, *yaml.Node, *yaml.Node) {
	for i := len(p.Sources) - 1; i >= 0; i-- {
		src := p.Sources[i]
		_, cfgs := yamledit.OwnKey(src.Root, "configs")
		_, cfg := yamledit.OwnKey(yamledit.Deref(cfgs), name)
		kn, content := yamledit.OwnKey(yamledit.Deref(cfg), "content")
		if content = yamledit.Deref(content); content != nil && content.Kind == yaml.ScalarNode {
			return src, kn, content
		}
	}
	return nil, nil, nil
}
