// Package consumer decides which program reads a connection URI
// (postgres://, postgresql://) and so which socket form, if any, may be
// written there. The text of a URI never tells: Prisma refuses an empty
// host, asyncpg ignores ?host= behind a non-empty one, Ecto ignores it
// altogether. The readers are data (readers.yaml, each row with its
// sources and the test that proves it here); Decide finds the readers of
// one variable in the files that reach a service's container.
package consumer

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Form is a socket form of a libpq-style connection URI.
type Form string

const (
	// Empty is postgres://USER:PW@/DB?host=/DIR: no authority host.
	Empty Form = "empty"
	// Localhost is postgres://USER:PW@localhost/DB?host=/DIR: ?host=
	// overrides the authority host for readers that merge the query.
	Localhost Form = "localhost"
	// Encoded is postgres://USER:PW@%2FDIR/DB: the directory as the host.
	Encoded Form = "encoded"
	// File is postgres://USER:PW@/DB?host=/DIR/.s.PGSQL.PORT: ?host=
	// names the socket file itself, for a reader that dials it as given
	// (bun's pgdriver); the port is in the file's name, not in ?port=.
	File Form = "file"
	// SocketDir is postgres://USER:PW@/DB?socket_dir=/DIR: Ecto's
	// parse_url makes every query parameter it does not know a repo
	// option, and Postgrex's :socket_dir is the socket directory.
	SocketDir Form = "socket_dir"
)

// preference is the order in which a form is chosen among those every
// reader accepts: the empty authority is libpq's documented form. File
// comes last: libpq and the drivers modelled on it fail on it ("Not a
// directory"), so it is chosen only where every reader takes it.
var preference = []Form{Empty, Localhost, Encoded, File, SocketDir}

// Reader is one row of the reader table.
type Reader struct {
	// Name identifies the row ("asyncpg", "prisma"); --consumer takes it.
	Name string `yaml:"name"`
	// Lang is the ecosystem ("python", "node", ...), for people.
	Lang string `yaml:"lang"`
	// Packages name the manifest entries that bring this reader, as
	// ECOSYSTEM:NAME with ECOSYSTEM one of npm, pypi, go, gem, hex,
	// composer, maven, nuget, cargo (names lower case, pypi with -).
	Packages []string `yaml:"packages"`
	// Forms are the socket forms the reader is known to accept; empty:
	// none, the value stays on TCP with Reason.
	Forms []Form `yaml:"forms"`
	// Newer are forms that only versions newer than the range the row
	// covers accept (form -> the first such version): the tool does not
	// write them, and e2e TestURIReaders, which runs a newer version,
	// expects them to connect.
	Newer map[Form]string `yaml:"newer"`
	// ByHand are forms the tool does not write (Encoded: readers differ on
	// decoding the host) that are known to survive this reader; the
	// warning that keeps the value on TCP prints the exact value in them
	// for the user to write by hand.
	ByHand []Form `yaml:"by_hand"`
	// PortIgnored: the reader takes ?host= but not ?port=; it reads the
	// port from the authority only. The empty form, which has no authority
	// to hold it, then reaches only a server on 5432; the localhost form
	// carries the port in its authority (@localhost:5433/DB?host=/DIR).
	PortIgnored bool `yaml:"port_ignored"`
	// Since, when set, limits Forms to the reader's package from
	// Since.Version on; Decide takes an older version, or one no manifest
	// gives, as taking no socket URI, for the reason Since.Before.
	Since *Since `yaml:"since"`
	// Imported: the package reads a URL only where the code builds its
	// client (databases.Database(url)), never on its own (no CLI, no
	// driver under another library). A manifest entry then brings the
	// reader only when code of its Lang in view uses it (a connector rule
	// matches) or no such code is in view: a declared package nobody
	// imports reads nothing.
	Imported bool `yaml:"imported"`
	// Params are URI query parameters only this reader takes: a URI that
	// carries one and works over TCP today is read by it.
	Params []string `yaml:"params"`
	// Reason says what the reader does with a URI, in one clause.
	Reason string `yaml:"reason"`
	// Sources say where that was read.
	Sources []string `yaml:"sources"`
	// Proof names the test that connects with the real library here, or
	// "documented".
	Proof string `yaml:"proof"`
}

// Since is the first version of a reader's package that takes its forms.
type Since struct {
	Version string `yaml:"version"`
	Before  string `yaml:"before"`
}

// Accepts reports whether the reader takes form f.
func (r *Reader) Accepts(f Form) bool { return slices.Contains(r.Forms, f) }

//go:embed readers.yaml
var readersYAML []byte

var (
	loadOnce sync.Once
	table    []*Reader
	loadErr  error
)

// Readers returns the reader table in file order. It panics when the
// embedded table is malformed (a test keeps it well-formed).
func Readers() []*Reader {
	loadOnce.Do(func() { table, loadErr = parseTable(readersYAML) })
	if loadErr != nil {
		panic(loadErr)
	}
	return table
}

func parseTable(data []byte) ([]*Reader, error) {
	var rs []*Reader
	if err := yaml.Unmarshal(data, &rs); err != nil {
		return nil, fmt.Errorf("consumer/readers.yaml: %w", err)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Name == "" || seen[r.Name] || r.Reason == "" || len(r.Sources) == 0 || r.Proof == "" {
			return nil, fmt.Errorf("consumer/readers.yaml: row %q needs a unique name, a reason, sources and a proof", r.Name)
		}
		seen[r.Name] = true
		if r.Since != nil && (r.Since.Version == "" || r.Since.Before == "") {
			return nil, fmt.Errorf("consumer/readers.yaml: %s: since needs a version and a before reason", r.Name)
		}
		for f := range r.Newer {
			if !slices.Contains(preference, f) || r.Accepts(f) {
				return nil, fmt.Errorf("consumer/readers.yaml: %s: newer form %q is unknown or already in forms", r.Name, f)
			}
		}
		for _, f := range r.Forms {
			if !slices.Contains(preference, f) {
				return nil, fmt.Errorf("consumer/readers.yaml: %s: unknown form %q", r.Name, f)
			}
		}
	}
	return rs, nil
}

// ByName returns the reader called name, or nil.
func ByName(name string) *Reader {
	for _, r := range Readers() {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// byPackage returns the reader a manifest entry brings, or nil.
func byPackage(pkg string) *Reader {
	pkg = strings.ToLower(pkg)
	for _, r := range Readers() {
		if slices.Contains(r.Packages, pkg) {
			return r
		}
	}
	return nil
}

// ParseForm returns the form named s ("empty", "localhost", "encoded",
// "file", "socket_dir").
func ParseForm(s string) (Form, bool) {
	f := Form(s)
	return f, slices.Contains(preference, f)
}

// Choose returns the preferred form that every reader accepts, or "".
func Choose(readers []*Reader) Form { return ChooseAt(readers, 5432) }

// ChooseAt returns the preferred form that every reader accepts for a
// server on port, or "": the empty form writes a port other than 5432 in
// ?port=, so it does not suit a reader that reads the port from the
// authority only (PortIgnored), nor does any other form but localhost,
// which writes it in the authority, where every reader of that form
// takes it.
func ChooseAt(readers []*Reader, port int) Form {
	for _, f := range preference {
		ok := len(readers) > 0
		for _, r := range readers {
			ok = ok && r.Accepts(f) && (f == Localhost || port == 5432 || !r.PortIgnored)
		}
		if ok {
			return f
		}
	}
	return ""
}

// ByParam returns the reader that alone takes query parameter name, or nil.
func ByParam(name string) *Reader {
	for _, r := range Readers() {
		if slices.Contains(r.Params, name) {
			return r
		}
	}
	return nil
}
