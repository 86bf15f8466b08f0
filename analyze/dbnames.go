package analyze

import (
	"fmt"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
)

// carriesName reports whether any database answers to host on some
// network (or is a link target named so): only then is a refusal news.
func carriesName(p *Project, dbs []*DB, client, host string) *DB {
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, c := range p.NameIndex()[host] {
		for _, db := range dbs {
			if db.Name == c.Service {
				return db
			}
		}
	}
	svc := p.Model.Services[client]
	if x, ok := strings.CutPrefix(svc.NetworkMode, "service:"); ok && loopback[host] {
		host = x // the client shares x's network namespace
		for _, db := range dbs {
			if db.Name == x {
				return db
			}
		}
	}
	if t, ok := compose.LinkAliases(svc)[host]; ok {
		for _, db := range dbs {
			if db.Name == t {
				return db
			}
		}
	}
	return nil
}

var loopback = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}

// dbFor returns the database host reaches from client, or nil with the
// code and message of a warning when the name would reach a database from
// another service but does not lead to exactly one from this one ("" when
// the name is nothing to warn about).
func (p *Project) dbFor(dbs []*DB, client, host string) (db *DB, code, why string) {
	r := p.Resolve(client, host)
	var hit []*DB
	for _, s := range r.Services {
		for _, d := range dbs {
			if d.Name == s {
				hit = append(hit, d)
			}
		}
	}
	switch {
	case r.Refuse != nil:
		if d := carriesName(p, dbs, client, host); d != nil {
			return nil, r.Code, r.Refuse(d.Name)
		}
		return nil, "", ""
	case len(hit) == 1 && len(r.Services) == 1:
		return hit[0], "", ""
	case len(hit) > 0:
		return nil, "UDS141", fmt.Sprintf("%s is a name of %s on the networks %s shares with them: Docker's DNS may answer with either server", host, strings.Join(r.Services, " and "), client)
	}
	return nil, "", ""
}
