package analyze

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
// service's own build manifests reach the tool and one that uses the
// driver does not declare it: the application could not load the class
// the socket value names (ClassNotFoundException at connect), so the
// value stays on TCP. With several Java builds in sight (pom.xml beside
// build.gradle) each must declare it, and the report names every one that
// does not. A service that runs an image with no manifest in sight is
// judged by the repository's Java builds the same way. With no Java build
// in sight at all (a published image, a jar built elsewhere) the value
// migrates with UDS101's manual step, as before. where names the value
// for the message ("SPRING_DATASOURCE_URL", "spring.datasource.url in
// FILE").
func (u socketUses) libraryMissing(v compose.EnvVar, d *dialect.Dialect, db *DB, where string) bool {
	if d == nil || d.Library == nil {
		return false
	}
	lib := d.Library
	scope := u.cl.scopes.Of(v.Service)
	seen, lacking := evidence.Declares(scope, lib.Manifests, lib.Driver, lib.Marker)
	if len(lacking) == 0 && len(seen) > 0 {
		return false
	}
	if len(seen) == 0 {
		svc := u.cl.p.Model.Services[v.Service]
		if b, _ := compose.ImageBuild(u.cl.p.Project, v.Service); b != nil || lib.Driver == "" {
			return false
		}
		repo, _ := u.cl.scopes.RepositoryDeclares(lib.Manifests, lib.Driver, lib.Marker)
		if len(repo) == 0 {
			return false
		}
		builds := "build (" + repo[0] + ") uses"
		if len(repo) > 1 {
			builds = "builds (" + listAnd(repo) + ") use"
		}
		u.cl.note("UDS135", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s reaches %s over TCP, and this repository's %s pgjdbc but nowhere %s, which the socket form needs (its socket factory, org.newsclub.net.unix.AFUNIXSocketFactory): an image built from it (%s runs %s) would fail to load it at connect, so %s is left unchanged. Add the dependency %s (type pom) to %s, then run the migration again",
				v.Service, v.Key, db.Name, builds, lib.Marker, v.Service, svc.Image, where, lib.Coordinates, thatBuild(repo)))
		return true
	}
	which, names := make([]string, len(lacking)), make([]string, len(lacking))
	for i, manifest := range lacking {
		which[i] = manifest
		if abs := filepath.Join(scope.ProjectDir, filepath.FromSlash(manifest)); u.imageBuilt(v.Service, abs) {
			// the manifest may sit above the compose file's folder: name it
			// from there (../../../pom.xml)
			if rel, err := filepath.Rel(u.cl.p.Model.WorkingDir, abs); err == nil {
				manifest = filepath.ToSlash(rel)
			}
			which[i] = manifest + " (its build makes the image " + u.cl.p.Model.Services[v.Service].Image + ")"
		}
		names[i] = manifest
	}
	manifests := "build manifest " + which[0] + " does"
	if len(which) > 1 {
		manifests = "build manifests " + listAnd(which) + " do"
	}
	u.cl.note("UDS135", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s reaches %s over TCP, and %s's %s not declare %s, which the socket form needs (its socket factory, org.newsclub.net.unix.AFUNIXSocketFactory): the application would fail to load it at connect, so %s is left unchanged. Add the dependency %s (type pom) to %s, then run the migration again",
			v.Service, v.Key, db.Name, v.Service, manifests, lib.Marker, where, lib.Coordinates, listAnd(names)))
	return true
}

// thatBuild names the builds to add a library to: "that build" for one,
// "each of them" for several (the image may come from any).
func thatBuild(builds []string) string {
	if len(builds) > 1 {
		return "each of them"
	}
	return "that build"
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

// listAnd joins names as prose: "a", "a and b", "a, b and c".
func listAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
