package rewrite

import (
	"fmt"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
)

// Name resolution as a client container sees it. Docker's embedded DNS
// answers a service name, container_name, hostname or network alias only
// on the networks the client shares with the service that carries it (the
// project's "default" network when a service lists none); links add an
// alias for a linked service; extra_hosts writes /etc/hosts, which wins
// over DNS; network_mode host, service:X and container:X leave compose's
// networks altogether (docs.docker.com/engine/network/#dns-services,
// docs.docker.com/reference/compose-file/services/#extra_hosts,
// #network_mode, #links). The engine answers hostname because it adds it
// as an alias on user-defined networks (moby/moby#39204, Docker 19.03);
// it does not answer hostname.domainname. e2e/docker's TestNameResolution
// checks these rules against a real engine.

// carrier is a service that answers to a name on one network.
type carrier struct {
	service string
	network string
}

// nameIndex maps each host name (lower case) to the services that carry it
// and the network they carry it on. Built once per project.
func (p *project) nameIndex() map[string][]carrier {
	if p.names != nil {
		return p.names
	}
	p.names = map[string][]carrier{}
	for _, name := range p.serviceOrder() {
		svc := p.model.Services[name]
		for _, nw := range slices.Sorted(mapsKeys(svc.Networks)) {
			names := []string{svc.Name, svc.ContainerName, svc.Hostname}
			if c := svc.Networks[nw]; c != nil {
				names = append(names, c.Aliases...)
			}
			for _, n := range names {
				if n != "" {
					k := strings.ToLower(n)
					p.names[k] = append(p.names[k], carrier{service: name, network: p.networkName(nw)})
				}
			}
		}
	}
	return p.names
}

// networkName is the engine's name of a network key: two keys naming one
// external network are one network.
func (p *project) networkName(key string) string {
	if n, ok := p.model.Networks[key]; ok && n.Name != "" {
		return n.Name
	}
	return key
}

// reach is where a host name written in a client leads.
type reach struct {
	services []string // the services the name reaches (more than one: ambiguous)
	// refuse, when set, says why the name does not lead to the compose
	// service db through Docker's DNS (extra_hosts, network_mode).
	refuse func(db string) string
	code   string
}

// resolve returns the services host reaches from client. A name no service
// carries on a shared network reaches nothing in the project.
func (p *project) resolve(client, host string) reach {
	host = strings.ToLower(strings.Trim(host, "[]"))
	svc := p.model.Services[client]
	if ip, ok := extraHost(svc, host); ok {
		return reach{code: "UDS140", refuse: func(db string) string {
			return fmt.Sprintf("extra_hosts maps %s to %s (an /etc/hosts entry, which wins over Docker's DNS), not to the service %s", host, ip, db)
		}}
	}
	if mode := svc.NetworkMode; mode != "" {
		return reach{code: "UDS142", refuse: func(db string) string { return networkModeNote(client, mode, db) }}
	}
	if target, ok := linkAliases(svc)[host]; ok {
		return reach{services: []string{target}}
	}
	mine := map[string]bool{}
	for nw := range svc.Networks {
		mine[p.networkName(nw)] = true
	}
	var out []string
	for _, c := range p.nameIndex()[host] {
		if mine[c.network] && c.service != client && !slices.Contains(out, c.service) {
			out = append(out, c.service)
		}
	}
	return reach{services: out}
}

// networkModeNote says what network_mode does to names, for a name that
// reaches the database db from the compose networks.
func networkModeNote(client, mode, db string) string {
	if mode == "host" {
		return fmt.Sprintf("network_mode: host puts %s on the host's network, where compose's service names do not resolve (so not to the service %s)", client, db)
	}
	if _, other, ok := strings.Cut(mode, ":"); ok {
		return fmt.Sprintf("network_mode: %s puts %s in %s's network namespace: names and localhost resolve as they do there, and a socket needs %s's socket volume mounted, which is set up by hand", mode, client, other, db)
	}
	return fmt.Sprintf("network_mode: %s takes %s off the compose networks, where the service %s's names resolve", mode, client, db)
}

// extraHost returns the address extra_hosts gives host in svc's /etc/hosts.
func extraHost(svc types.ServiceConfig, host string) (string, bool) {
	for h, ips := range svc.ExtraHosts {
		if strings.EqualFold(h, host) {
			return strings.Join(ips, ","), true
		}
	}
	return "", false
}

// carriesName reports whether any database answers to host on some
// network (or is a link target named so): only then is a refusal news.
func carriesName(p *project, dbs []*dbService, client, host string) *dbService {
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, c := range p.nameIndex()[host] {
		for _, db := range dbs {
			if db.name == c.service {
				return db
			}
		}
	}
	svc := p.model.Services[client]
	if x, ok := strings.CutPrefix(svc.NetworkMode, "service:"); ok && loopback[host] {
		host = x // the client shares x's network namespace
		for _, db := range dbs {
			if db.name == x {
				return db
			}
		}
	}
	if t, ok := linkAliases(svc)[host]; ok {
		for _, db := range dbs {
			if db.name == t {
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
func (p *project) dbFor(dbs []*dbService, client, host string) (db *dbService, code, why string) {
	r := p.resolve(client, host)
	var hit []*dbService
	for _, s := range r.services {
		for _, d := range dbs {
			if d.name == s {
				hit = append(hit, d)
			}
		}
	}
	switch {
	case r.refuse != nil:
		if d := carriesName(p, dbs, client, host); d != nil {
			return nil, r.code, r.refuse(d.name)
		}
		return nil, "", ""
	case len(hit) == 1 && len(r.services) == 1:
		return hit[0], "", ""
	case len(hit) > 0:
		return nil, "UDS141", fmt.Sprintf("%s is a name of %s on the networks %s shares with them: Docker's DNS may answer with either server", host, strings.Join(r.services, " and "), client)
	}
	return nil, "", ""
}

// dbAt returns the database host (written in v) reaches from v's service,
// warning once at v when the name would reach a database but cannot be
// followed to exactly one from there: the value stays on TCP.
func (pl *planner) dbAt(dbs []*dbService, v envVar, host string) *dbService {
	db, code, why := pl.p.dbFor(dbs, v.service, host)
	if code == "" {
		return db
	}
	for _, f := range pl.findings {
		if f.Code == code && f.File == v.pos.File && f.Line == v.pos.Line && f.Col == v.pos.Col && f.Key == v.key {
			return nil
		}
	}
	pl.findings.add(code, v.pos, v.service, v.key,
		fmt.Sprintf("%s/%s names the host %s, but %s; left on TCP", v.service, v.key, host, why))
	return nil
}
