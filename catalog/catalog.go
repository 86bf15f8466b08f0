// Package catalog is what published container images do with the
// environment variables that carry a PostgreSQL connection: which variable
// holds the host, the port or a URL, and whether the host may be a Unix
// socket directory. It is data (images/*.yaml, one file per image family,
// embedded), each fact with the source it was read from.
//
// The same files describe the PostgreSQL server images (an entry with a
// server: block: the official image and the images that are PostgreSQL
// under another name) and the connection poolers (pooler: true), so that
// which services are servers, where they keep their socket and which are
// poolers is data with sources too.
//
// A host variable that takes a directory is migrated to the socket mount
// path; one that does not (a JDBC image without junixsocket, an entrypoint
// that resolves the host by name first) is reported with the entry's
// reason and left on TCP.
package catalog

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

//go:embed images/*.yaml
var imagesFS embed.FS

// Entry is one image family.
type Entry struct {
	// Family names the entry (the file name without .yaml).
	Family string `yaml:"family"`
	// Images are repository paths as docker writes them after the
	// registry host, lower case, without tag: "odoo", "bitnami/pgbouncer",
	// "goauthentik/server". Any registry (docker.io, ghcr.io, a mirror)
	// matches, and "library/X" matches "X". A path with * or [...] is a
	// path.Match pattern for repositories that carry a version in their
	// name ("sclorg/postgresql-[0-9]*-c[0-9]*s"); a star never crosses a /.
	Images []string `yaml:"images"`
	// MinVersion, when set, is the first image tag the entry holds for
	// (dotted numbers compared piecewise); an older numeric tag gets no
	// verdict. Non-numeric tags (latest, alpine) are taken as current.
	MinVersion string `yaml:"min_version,omitempty"`
	// Pooler marks a connection pooler: its host variable is its own hop
	// to PostgreSQL; its clients stay on TCP to it. A pooler entry may
	// list no variables (one configured by a file only, as PgCat).
	Pooler bool `yaml:"pooler,omitempty"`
	// Server, when set, makes the entry a PostgreSQL server image: where
	// it keeps its socket and how it authenticates local connections. A
	// server entry lists no variables.
	Server *Server `yaml:"server,omitempty"`
	// NotAClient marks an image whose programs read no application
	// connection variable (DATABASE_URL, DB_HOST): a service running it
	// that inherits one from a shared env_file does not read it, so it
	// gets no socket mount (under trust authentication the mount is a
	// superuser login), unless a file of the project that reaches it
	// names the variable (an nginx template). It has no vars.
	NotAClient bool `yaml:"not_a_client,omitempty"`
	// StateDir, when set, is the directory (the image's volume) where the
	// image keeps the connection it was set up with (Nextcloud's
	// config/config.php under /var/www/html): another service of the same
	// image that mounts the same volume there (Nextcloud's cron) reads the
	// migrated host from that file, so it mounts the socket too.
	StateDir string `yaml:"state_dir,omitempty"`
	// Vars are the variables the image reads for its connection.
	Vars []Var `yaml:"vars"`
	// Files are settings of configuration files the image reads at a
	// path in its container (gatus' storage.path in /config/config.yaml,
	// pretalx's [database] host in /etc/pretalx/pretalx.cfg): where a
	// service bind-mounts the file, the setting is edited in place.
	Files []File `yaml:"files,omitempty"`
	// Sources say where each fact was read (URL or repo + file) and what
	// was read there.
	Sources []Source `yaml:"sources"`
}

// Var is one variable of an image.
type Var struct {
	Key string `yaml:"key"`
	// Role is "host", "port" or "url".
	Role string `yaml:"role"`
	// Directory: the host variable may be an absolute socket directory
	// (the image hands it to libpq, psycopg, pgx, the pg gem, PgBouncer).
	// For a url variable: the tool's URL rewriter applies (DATABASE_URL);
	// for a jdbc:postgresql: one without ExtensionDir, that says the image
	// ships junixsocket beside pgjdbc (Traccar), so no UDS101 step.
	Directory bool `yaml:"directory"`
	// Reason says what the image does with the value; for a variable that
	// does not take a directory it is the warning's explanation.
	Reason string `yaml:"reason"`
	// NoSocket, for a variable that takes no socket (directory: false):
	// no socket value of any form gets the image started, because its
	// entrypoint resolves the value as a network host name first and exits
	// when it does not resolve (Bitnami's wait-for-port --host). Where it is
	// not set, a hand-written socket value may still work (Authelia's
	// unix:// address, Mealie's POSTGRES_URL_OVERRIDE): the tool only does
	// not write one. A socket path in a no_socket variable is an error
	// (UDS221), and migrate repairs none.
	NoSocket bool `yaml:"no_socket,omitempty"`
	// URIHost, for a url variable that takes the socket form: the host the
	// URL's authority keeps ("localhost") beside ?host=DIR, because the
	// application checks the URL with WHATWG new URL(), which rejects an
	// empty host (Prisma apps: Umami). Empty: the authority stays empty
	// (asyncpg needs that, FACTS.md).
	URIHost string `yaml:"uri_host,omitempty"`
	// ExtensionDir, for a url variable that takes the socket form: the
	// form needs a library the image does not ship (a JDBC image without
	// junixsocket), and this is the directory the image loads extra jars
	// from (/opt/keycloak/providers). The value is migrated only when the
	// service builds its own image (build:) or mounts something at, under or
	// above this directory; otherwise it stays on TCP with Reason (UDS151).
	ExtensionDir string `yaml:"extension_dir,omitempty"`
	// UnlessConf names a setting of a configuration file in the container
	// that the image reads instead of this variable when the file sets it
	// (Odoo: db_host in /etc/odoo/odoo.conf). When the compose file
	// bind-mounts that file and it sets the key, the variable stays on TCP
	// with a warning naming the file and line.
	UnlessConf *ConfKey `yaml:"unless_conf,omitempty"`
	// HostPort: the value is host[:port], and a directory takes the
	// :port suffix the same way (/var/run/postgresql:5432).
	HostPort bool `yaml:"host_port,omitempty"`
	// NoQueryPort: for a url variable, the image's driver takes the socket
	// directory from ?host= but ignores ?port= and always opens
	// .s.PGSQL.5432 (knex 0.21's and Sequelize 6's URL parsers): a server
	// on another port stays on TCP.
	NoQueryPort bool `yaml:"no_query_port,omitempty"`
	// Port names the variable that holds the port beside a host variable
	// (it stays: the port names the socket file .s.PGSQL.<port>).
	Port string `yaml:"port,omitempty"`
	// Unless lists variables whose presence makes the image ignore this
	// one (edoburu/pgbouncer: DATABASE_URL overrides DB_HOST).
	Unless []string `yaml:"unless,omitempty"`
	// Default, for a host variable, is the host the image connects to
	// when the variable is unset (or empty), as its code falls back
	// (Immich: host: dto.DB_HOSTNAME || 'database'), read from the
	// entry's sources. When a service leaves the variable unset and a
	// database service of the project answers to that name, the
	// migration sets the variable in the service's environment.
	Default string `yaml:"default,omitempty"`
	// Requires, for a variable that takes the socket (directory: true),
	// lists settings of other variables of the same service without which
	// it takes none: Unleash's DATABASE_HOST and DATABASE_URL reach a
	// socket only with DATABASE_SSL=false, since its default ssl options
	// make node-postgres ask the socket for SSL. In a service that does
	// not meet one, the variable is one with directory: false and the
	// requirement's reason (Var.In).
	Requires []Require `yaml:"requires,omitempty"`
	// SocketVar, for a host variable that takes the socket (directory:
	// true): the image reads the socket directory from this other
	// variable, not from the host variable, which it still dials over TCP
	// (TeslaMate: DATABASE_SOCKET_DIR makes Ecto connect through
	// socket_dir, while the entrypoint waits with nc -z DATABASE_HOST
	// DATABASE_PORT). The migration sets SocketVar to the mount path and
	// leaves the host as written; the server keeps answering on TCP.
	SocketVar string `yaml:"socket_var,omitempty"`
	// Also lists variables that must change with this one.
	Also []Also `yaml:"also,omitempty"`
	// Since, when set, is what the variable does from an image version
	// on: for a tag at or above Since.Version (and for a non-numeric tag,
	// taken as current) Lookup returns the variable with Since's
	// Directory and Reason (Lemmy 1.0 rebuilds LEMMY_DATABASE_URL's query,
	// 0.19 hands it on unchanged).
	Since *Since `yaml:"since,omitempty"`
}

// Since is a variable's behaviour from an image version on.
type Since struct {
	Version   string `yaml:"version"`
	Directory bool   `yaml:"directory"`
	Reason    string `yaml:"reason"`
	// Sources say where the newer behaviour was read; Lookup cites them
	// first for a tag at or above Version.
	Sources []Source `yaml:"sources"`
}

// Require is a value another variable of the same service must have for
// a variable to take the socket.
type Require struct {
	Key   string `yaml:"key"`
	Value string `yaml:"value"`
	// OrUnset: the image reads Value when Key is unset (its default), so
	// a service that leaves Key unset meets the requirement too.
	OrUnset bool `yaml:"or_unset,omitempty"`
	// Reason says what the image does with another value of Key on a
	// socket: the warning's explanation where the requirement is not met.
	Reason string `yaml:"reason"`
}

// File is one setting of a configuration file an image reads: the file
// (an absolute path in the container), its syntax, the setting's key and
// what the image's reader takes there.
type File struct {
	// Path is the file's absolute path in the container.
	Path string `yaml:"path"`
	// PathVars name variables with which the image reads another file
	// (gatus' GATUS_CONFIG_PATH, pretalx's PRETALX_CONFIG_FILE): in a
	// service that sets one, Path is not the file read, and nothing is.
	PathVars []string `yaml:"path_vars,omitempty"`
	// Format is the file's syntax: "yaml" (Key a dotted path of
	// mappings: storage.path) or "ini" (Key is SECTION.KEY, read as
	// Python's configparser reads it: database.host).
	Format string `yaml:"format"`
	Key    string `yaml:"key"`
	// Role is "url" (a libpq-style connection URI) or "host" (a host
	// setting the image hands to its driver as the host).
	Role string `yaml:"role"`
	// When, if set, is another setting of the same file that must have
	// Value for Key to be the connection the image opens (gatus:
	// storage.type postgres; pretalx: database.backend postgresql).
	When *FileWhen `yaml:"when,omitempty"`
	// Unless lists variables that, set in the service, replace the
	// file's setting (pretalx reads PRETALX_DB_HOST over the file's
	// host): the file is then not edited.
	Unless []string `yaml:"unless,omitempty"`
	// Port, for a host setting, is the key of the port setting beside
	// it in the same file: it must name the server's port (or be unset
	// for 5432), since the driver opens .s.PGSQL.<port>.
	Port string `yaml:"port,omitempty"`
	// Directory: the reader takes the socket there (a host: an absolute
	// directory; a url: the socket form, empty authority unless URIHost).
	Directory bool `yaml:"directory"`
	// URIHost, as Var.URIHost: "localhost" keeps that authority beside
	// ?host=DIR; empty leaves the authority empty (lib/pq needs that).
	URIHost string `yaml:"uri_host,omitempty"`
	Reason  string `yaml:"reason"`
}

// FileWhen is a setting of the same file and the value it must have.
type FileWhen struct {
	Key   string `yaml:"key"`
	Value string `yaml:"value"`
}

// File formats.
const (
	FormatYAML = "yaml"
	FormatINI  = "ini"
)

// ConfKey is a key of an INI-style file at an absolute container path.
type ConfKey struct {
	File string `yaml:"file"`
	Key  string `yaml:"key"`
}

// Also is a variable to set beside a migrated host variable.
type Also struct {
	Key    string `yaml:"key"`
	Value  string `yaml:"value"`
	Reason string `yaml:"reason"`
}

// Source is where a fact was read: a URL, or a repository and a file in
// it (at Commit, when given), and what it says.
type Source struct {
	URL  string `yaml:"url,omitempty"`
	Repo string `yaml:"repo,omitempty"`
	File string `yaml:"file,omitempty"`
	// Commit is the full 40-hex commit the file was read at, so that the
	// citation still points at the text read after the file changes.
	Commit string `yaml:"commit,omitempty"`
	Read   string `yaml:"read"`
}

// Cite returns the source as one reference: the URL, or repo:file, with
// @ and the first 12 digits of the commit when one is recorded.
func (s Source) Cite() string {
	if s.URL != "" {
		return s.URL
	}
	if len(s.Commit) >= 12 {
		return s.Repo + ":" + s.File + "@" + s.Commit[:12]
	}
	return s.Repo + ":" + s.File
}

// Roles of a variable.
const (
	RoleHost = "host"
	RolePort = "port"
	RoleURL  = "url"
)

var (
	loadOnce sync.Once
	entries  []*Entry
	loadErr  error
)

// All returns every entry, ordered by family. It panics if the embedded
// data is invalid (the schema test keeps it valid).
func All() []*Entry {
	loadOnce.Do(func() { entries, loadErr = load(imagesFS) })
	if loadErr != nil {
		panic(loadErr)
	}
	return entries
}

// load reads and checks every images/*.yaml file of fsys.
func load(fsys fs.FS) ([]*Entry, error) {
	names, err := fs.Glob(fsys, "images/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Entry
	seen := map[string]string{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		e, err := parse(data)
		if err != nil {
			return nil, fmt.Errorf("catalog/%s: %w", name, err)
		}
		if want := strings.TrimSuffix(path.Base(name), ".yaml"); e.Family != want {
			return nil, fmt.Errorf("catalog/%s: family %q, want %q (the file name)", name, e.Family, want)
		}
		for _, img := range e.Images {
			if prev, ok := seen[img]; ok {
				return nil, fmt.Errorf("catalog/%s: image %q is already in %s", name, img, prev)
			}
			seen[img] = e.Family
		}
		out = append(out, e)
	}
	// A pattern must not also match another entry's image: Lookup would
	// then depend on the order of the files.
	for img, fam := range seen {
		for pat, pfam := range seen {
			if pat != img && pfam != fam && isPattern(pat) && matchImage(pat, img) {
				return nil, fmt.Errorf("catalog: image %q of %s also matches %q of %s", img, fam, pat, pfam)
			}
		}
	}
	return out, nil
}

// parse decodes one entry strictly (unknown fields are errors) and checks it.
func parse(data []byte) (*Entry, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var e Entry
	if err := dec.Decode(&e); err != nil {
		return nil, err
	}
	return &e, e.check()
}
