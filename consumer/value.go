package consumer

import (
	pathpkg "path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// FromValue returns the readers a connection URI's own text shows (File
// and Line are the caller's: the value's position):
//   - a postgresql+DRIVER:// scheme is SQLAlchemy's dialect syntax, which
//     no other reader takes; +pg8000 adds pg8000, which takes no socket URI;
//   - a query parameter that only one reader takes (pool_max_conns: pgx's
//     pool; schema: Prisma; serverVersion: Doctrine), since libpq refuses an
//     unknown one and the value works over TCP today.
func FromValue(uri string) []Use {
	u, err := libpq.ParseURI(uri)
	if err != nil {
		return nil
	}
	var out []Use
	if _, drv, ok := strings.Cut(u.Scheme, "+"); ok {
		out = append(out, Use{Reader: ByName("sqlalchemy"), How: "has the SQLAlchemy scheme " + u.Scheme + "://"})
		if strings.EqualFold(drv, "pg8000") {
			out = append(out, Use{Reader: ByName("pg8000"), How: "names the pg8000 driver"})
		}
	}
	for _, p := range u.Params {
		if r := ByParam(p.Key); r != nil {
			out = append(out, Use{Reader: r, How: "takes the parameter " + p.Key + ", which only " + r.Name + " reads"})
		}
	}
	return dedupe(out)
}

// Refine joins to the verdict the project's files give (v, ok from
// Decide) what the value's own text and place show (FromValue, FromFile;
// file and line are the value's position). A reader a manifest declares
// counts only when it could read the value as it works today: a
// postgresql+DRIVER:// URL is SQLAlchemy's alone (asyncpg, declared for
// SQLAlchemy's dialect, never parses it).
func Refine(v Verdict, ok bool, uri, file string, line int) (Verdict, bool) {
	own := append(FromValue(uri), FromFile(filepath.ToSlash(file))...)
	if len(own) == 0 {
		return v, ok
	}
	for i := range own {
		own[i].File, own[i].Line = file, line
	}
	// A reader the value's place shows (Rails' config/database.yml) is
	// the version the project's manifests declare.
	var declared []Use
	for _, u := range v.Uses {
		if u.Declared {
			declared = append(declared, u)
		}
	}
	own = gateVersions(own, declared)
	uses := v.Uses
	if u, err := libpq.ParseURI(uri); err == nil && strings.Contains(u.Scheme, "+") {
		uses = slices.DeleteFunc(slices.Clone(uses), func(u Use) bool { return u.Declared && u.Reader.Name != "sqlalchemy" })
	}
	return Combine(append(uses, own...)), true
}

// FromFile returns the readers that the file holding a connection URI
// shows by its place alone: config/database.yml (or .yml.erb) is read by
// Rails (ActiveRecord's DatabaseConfigurations, whose
// ConnectionUrlResolver reads url:). path is slash-separated, relative to
// the project or absolute; File and Line are the caller's.
func FromFile(path string) []Use {
	dir, base := pathpkg.Split(pathpkg.Clean("/" + path))
	if (base == "database.yml" || base == "database.yml.erb") && pathpkg.Base(dir) == "config" {
		return []Use{{Reader: ByName("rails"), How: "is Rails' config/" + base}}
	}
	return nil
}
