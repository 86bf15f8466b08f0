package e2e

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// hostVarRE matches an application's own host variable (POSTGRES_HOST,
// DB_HOST): the goldens set one to a socket directory only where the
// project's code hands it to a libpq-family driver, which is what the probe
// then does with it (libpq's host= and port=).
var hostVarRE = regexp.MustCompile(`(^|_)HOST$`)

// hostVarEdges turns X_HOST=/dir (with X_PORT, X_USER, X_PASSWORD, X_DB
// or X_NAME) into edges probed like PGHOST.
func hostVarEdges(env map[string]string) []edge {
	var keys []string
	for k, v := range env {
		if k != "PGHOST" && hostVarRE.MatchString(k) && strings.HasPrefix(v, "/") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []edge
	for _, k := range keys {
		e := edge{dialect: "pgenv", key: k, dir: env[k], port: 5432, value: k + "=" + env[k]}
		// Gitea writes DIR:port in one variable (catalog/images/gitea.yaml).
		if i := strings.LastIndexByte(e.dir, ':'); i > 0 {
			if n, err := strconv.Atoi(e.dir[i+1:]); err == nil {
				e.dir, e.port = e.dir[:i], n
				out = append(out, e)
				continue
			}
		}
		if p := sibling(env, k, "_PORT"); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil {
				continue
			}
			e.port = n
		}
		e.database = sibling(env, k, "_DB", "_NAME", "_DATABASE")
		out = append(out, e)
	}
	return out
}
