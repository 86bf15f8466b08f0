package consumer

import (
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
