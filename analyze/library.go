package analyze

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// socketUses judges the uses of a client's value, seen in the project
// files that reach it, that a socket form would break: a library the form
// needs that the build does not declare (a TCP dial of a host variable is
// hostvar.Query.TCPUse). Each method notes what it finds and says whether
// the value must stay on TCP.
type socketUses struct{ cl *collector }

// libraryMissing reports (UDS135) a value whose socket form needs a
// library in the client (pgjdbc's socket factory, junixsocket) when the
// service's own build manifests reach the tool and none declares it: the
// application could not load the class the socket value names
// (ClassNotFoundException at connect), so the value stays on TCP. A
// service that runs an image with no manifest in sight is judged by the
// repository's Java build: when a manifest there declares the driver and
// none the library, the image that repository builds cannot take the
// socket form either. With no Java build in sight at all (a published
// image, a jar built elsewhere) the value migrates with UDS101's manual
// step, as before. where names the value for the message
// ("SPRING_DATASOURCE_URL", "spring.datasource.url in FILE").
func (u socketUses) libraryMissing(v compose.EnvVar, d *dialect.Dialect, db *DB, where string) bool {
	if d == nil || d.Library == nil {
		return false
	}
	lib := d.Library
	scope := u.cl.scopes.Of(v.Service)
	manifest, declared := evidence.Declares(scope, lib.Manifests, lib.Marker)
	if declared {
		return false
	}
	if manifest == "" {
		svc := u.cl.p.Model.Services[v.Service]
		if svc.Build != nil || lib.Driver == "" {
			return false
		}
		repo, declared := u.cl.scopes.RepositoryDeclares(lib.Manifests, lib.Driver, lib.Marker)
		if repo == "" || declared {
			return false
		}
		u.cl.note("UDS135", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s reaches %s over TCP, and this repository's build (%s) uses pgjdbc but nowhere %s, which the socket form needs (its socket factory, org.newsclub.net.unix.AFUNIXSocketFactory): an image built from it (%s runs %s) would fail to load it at connect, so %s is left unchanged. Add the dependency %s (type pom) to that build, then run the migration again",
				v.Service, v.Key, db.Name, repo, lib.Marker, v.Service, svc.Image, where, lib.Coordinates))
		return true
	}
	which := manifest
	if abs := filepath.Join(scope.ProjectDir, filepath.FromSlash(manifest)); u.imageBuilt(v.Service, abs) {
		// the manifest may sit above the compose file's folder: name it
		// from there (../../../pom.xml)
		if rel, err := filepath.Rel(u.cl.p.Model.WorkingDir, abs); err == nil {
			manifest = filepath.ToSlash(rel)
		}
		which = manifest + " (its build makes the image " + u.cl.p.Model.Services[v.Service].Image + ")"
	}
	u.cl.note("UDS135", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s reaches %s over TCP, and %s's build manifest %s does not declare %s, which the socket form needs (its socket factory, org.newsclub.net.unix.AFUNIXSocketFactory): the application would fail to load it at connect, so %s is left unchanged. Add the dependency %s (type pom) to %s, then run the migration again",
			v.Service, v.Key, db.Name, v.Service, which, lib.Marker, where, lib.Coordinates, manifest))
	return true
}

// imageBuilt reports whether manifest (absolute) is the build that makes
// the image a service without a build: of its own runs (ImageBuilders).
func (u socketUses) imageBuilt(service, manifest string) bool {
	svc := u.cl.p.Model.Services[service]
	return svc.Build == nil && svc.Image != "" && slices.Contains(u.cl.scopes.ImageBuilders(svc.Image), manifest)
}

// libraryShipped returns the catalogue's basis when the service's image
// ships the library v's socket form needs: its entry lists v as a url
// variable that takes the socket form with no extension_dir (Traccar from
// 6.11 bundles junixsocket-core beside pgjdbc). Nil otherwise, and for a
// form that needs no library.
func (u socketUses) libraryShipped(v compose.EnvVar, d *dialect.Dialect) *finding.Basis {
	if d == nil || d.Library == nil {
		return nil
	}
	e, cv := hostvar.CatalogueVar(u.cl.p.Project, v.Service, v.Key)
	if cv == nil || cv.Role != catalog.RoleURL || !cv.Directory || cv.ExtensionDir != "" {
		return nil
	}
	b := hostvar.CatalogueBasis(e, cv.Reason)
	return &b
}
