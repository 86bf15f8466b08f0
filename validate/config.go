package validate

import (
	"path"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
)

// checkConfigFiles checks the socket-form values of the configuration
// files the clients read (Spring's application.yml, a .properties file,
// bind-mounted, in configs: or copied into an image built here) as it
// checks environment values, but as written: nothing interpolates such a
// file, so junixsocket's $FactoryArg has one $ there (trial 5, D5).
func (v *validator) checkConfigFiles() {
	for _, s := range v.reads().ConfigSettings() {
		at := v.valueAt(finding.Pos{File: s.Path, Line: s.Value.Line, Col: s.Value.Col}, s.Service, s.Value.Key)
		if strings.Contains(s.Value.Value, "$$FactoryArg") {
			// The compose spelling copied into a file nothing interpolates:
			// pgjdbc gets both $ and cannot find the class (case 20).
			at("UDS201", "the junixsocket factory is written AFUNIXSocketFactory$$FactoryArg in a configuration file, which compose does not interpolate: pgjdbc gets $$FactoryArg as written and cannot load the class (ClassNotFoundException); write $FactoryArg with one $ here")
			continue
		}
		if _, _, socket := dialect.Classify(s.Value.Value); !socket {
			continue
		}
		v.checkPlainValue(at, s.Service, s.Value.Key, s.Value.Value, v.p.ServiceMounts(s.Service))
	}
}

// checkCatalogueFiles checks the socket-form settings of the configuration
// files catalogued images read (catalog.File: gatus' storage.path,
// pretalx's [database] host) as checkConfigFiles checks a file's values:
// a host setting is the socket directory, its port the file's.
func (v *validator) checkCatalogueFiles() {
	for _, s := range v.reads().CatalogueFileSockets() {
		at := v.valueAt(s.Pos, s.Service, s.Key)
		if s.Host {
			v.checkSocketPath(at, s.Service+"/"+s.Key, path.Join(s.Value, ".s.PGSQL."+strconv.Itoa(s.Port)), v.p.ServiceMounts(s.Service))
			continue
		}
		v.checkPlainValue(at, s.Service, s.Key, s.Value, v.p.ServiceMounts(s.Service))
	}
}
