package hostvar

import (
	"github.com/uds-migrate/uds-migrate/compose"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/internal/dockerfile"
)

// OpaqueBase returns the base image of a service built here whose
// Dockerfile copies no file of its context into the image itself
// (dockerfile.OpaqueBase) when that base may copy it with ONBUILD: the
// tool cannot tell which files of the context reach the container. ""
// when the Dockerfile copies files, the service builds nothing, or the base
// is a plain one (plainBase).
func (sc *Scopes) OpaqueBase(service string) string {
	b, _ := compose.ImageBuild(sc.p, service)
	if b == nil || b.Context == "" {
		return ""
	}
	data, err := sc.read(sc.p.DisplayPath(dockerfile.Path(b.Context, b.Dockerfile)))
	if err != nil {
		return ""
	}
	base := dockerfile.OpaqueBase(data, b.Target)
	if base == "" || plainBase(base) {
		return ""
	}
	return base
}

// plainBase reports whether an image reference is a Docker Official Image
// (no namespace, on Docker Hub) whose tag is no onbuild variant, or
// scratch: those images carry no ONBUILD instruction since the onbuild
// variants were deprecated and removed (docker-library/official-images#2076,
// docker-library/docs#911 in 2017; docker-library/python#314 and
// docker-library/ruby#223 removed the last in 2018). Any other image may
// copy its child's context with ONBUILD.
func plainBase(ref string) bool {
	repo, tag := catalog.Split(ref)
	if repo == "scratch" {
		return true
	}
	// a first component with a dot or a port, or localhost, is another
	// registry (distribution/reference)
	first, _, hasSlash := strings.Cut(strings.ToLower(ref), "/")
	onHub := !hasSlash || first == "docker.io" || first == "index.docker.io" || !strings.ContainsAny(first, ".:") && first != "localhost"
	return onHub && !strings.Contains(repo, "/") && !strings.Contains(tag, "onbuild")
}

// ContextScope is a service's whole build context as evidence readers see
// it, for a service whose image may take the context by ONBUILD
// (OpaqueBase): what the context shows is what the image holds if the base
// copies it all, which is what an ONBUILD COPY . usually does.
func (sc *Scopes) ContextScope(service string) evidence.Scope {
	b, _ := compose.ImageBuild(sc.p, service)
	return evidence.Scope{
		ProjectDir: sc.serviceEvidenceRoot(service),
		Roots:      []string{b.Context},
		Read:       func(p string) ([]byte, error) { return sc.read(sc.p.DisplayPath(p)) },
		Refused:    sc.refuse,
	}
}
