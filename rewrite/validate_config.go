package rewrite

import "github.com/uds-migrate/uds-migrate/dialect"

// checkConfigFiles checks the socket-form values of the configuration
// files the clients read (Spring's application.yml, a .properties file,
// bind-mounted, in configs: or copied into an image built here) as it
// checks environment values, but as written: nothing interpolates such a
// file, so junixsocket's $FactoryArg has one $ there (trial 5, D5).
func (v *validator) checkConfigFiles() {
	for _, s := range (fileValues{v.reads()}).settings() {
		if _, _, socket := dialect.Classify(s.val.Value); !socket {
			continue
		}
		at := v.valueAt(Pos{File: s.path, Line: s.val.Line, Col: s.val.Col}, s.service, s.val.Key)
		v.checkPlainValue(at, s.service, s.val.Key, s.val.Value, v.p.ServiceMounts(s.service))
	}
}
