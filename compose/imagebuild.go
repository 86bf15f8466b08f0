package compose

import (
	"maps"
	"slices"

	"github.com/compose-spec/compose-go/v2/types"
)

// ImageBuild returns the build that makes the image a service runs: its
// own build:, else, for a service with only an image:, the build of the
// services of this project that build exactly that image (their image:
// equal to its own after interpolation, DefectDojo's celerybeat,
// celeryworker and initializer running the
// defectdojo/defectdojo-django:${DJANGO_VERSION:-latest} that uwsgi
// builds). docker compose tags what such a service builds with its
// image: and runs that tag wherever the project names it, and skips
// pulling an image a service of the project builds: the service runs the
// same code, so the files that build reaches its container as they reach
// the builder's. builder names the building service (the first in file
// order) when the build is another service's, "" for a service's own.
//
// Nothing else makes two services share a build: an image built
// elsewhere (a CI workflow, another repository), a tag that differs
// (foo:${TAG} beside foo:latest, unless they interpolate equal), an image
// pulled afresh whatever the project built (pull_policy: always, daily,
// weekly, every_*, refresh), several builds of the one image that differ
// (context, Dockerfile, target, args: which one made the tag depends on
// the order they ran). nil then, and for a service with neither.
func ImageBuild(p *Project, service string) (b *types.BuildConfig, builder string) {
	svc, ok := p.Model.Services[service]
	if !ok {
		return nil, ""
	}
	if svc.Build != nil {
		return svc.Build, ""
	}
	if svc.Image == "" || !keepsLocalImage(svc.PullPolicy) {
		return nil, ""
	}
	for _, name := range p.ServiceOrder() {
		other, ok := p.Model.Services[name]
		if !ok || name == service || other.Build == nil || other.Image != svc.Image {
			continue
		}
		if b == nil {
			b, builder = other.Build, name
			continue
		}
		if !sameBuild(b, other.Build) {
			return nil, ""
		}
	}
	return b, builder
}

// keepsLocalImage reports whether a pull_policy runs an image present on
// the engine, one a service of the project built, rather than pulling
// the registry's over it: unset, missing, if_not_present, never, build.
func keepsLocalImage(policy string) bool {
	switch policy {
	case "", types.PullPolicyMissing, types.PullPolicyIfNotPresent, types.PullPolicyNever, types.PullPolicyBuild:
		return true
	}
	return false
}

// sameBuild reports whether two builds make the same image from the same
// inputs.
func sameBuild(a, b *types.BuildConfig) bool {
	return a.Context == b.Context && a.Dockerfile == b.Dockerfile && a.DockerfileInline == b.DockerfileInline &&
		a.Target == b.Target && maps.EqualFunc(a.Args, b.Args, func(x, y *string) bool {
		return (x == nil) == (y == nil) && (x == nil || *x == *y)
	}) && slices.Equal(a.Platforms, b.Platforms)
}
