package compose

import (
	"fmt"
	"maps"
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

// Carrier is a service that answers to a name on one network.
type Carrier struct {
	Service string
	Network string
}

// NameIndex maps each host name (lower case) to the services that carry it
// and the network they carry it on. Built once per project.
func (p *Project) NameIndex() map[string][]Carrier {
	if p.names != nil {
		return p.names
	}
	p.names = map[string][]Carrier{}
	for _, name := range p.ServiceOrder() {
		svc := p.Model.Services[name]
		for _, nw := range slices.Sorted(maps.Keys(svc.Networks)) {
			names := []string{svc.Name, svc.ContainerName, svc.Hostname}
			if c := svc.Networks[nw]; c != nil {
				names = append(names, c.Aliases...)
			}
			for _, n := range names {
				if n != "" {
					k := strings.ToLower(n)
					p.names[k] = append(p.names[k], Carrier{Service: name, Network: p.NetworkName(nw)})
				}
			}
		}
	}
	return p.names
}

// NetworkName is the engine's name of a network key: two keys naming one
// external network are one network.
func (p *Project) NetworkName(key string) string {
	if n, ok := p.Model.Networks[key]; ok && n.Name != "" {
		return n.Name
	}
	return key
}

// Reach is where a host name written in a client leads.
type Reach struct {
	Services []string // the services the name reaches (more than one: ambiguous)
	// Refuse, when set, says why the name does not lead to the compose
	// service db through Docker's DNS (extra_hosts, network_mode).
	Refuse func(db string) string
	Code   string
}

// Resolve returns the services host reaches from client. A name no service
// carries on a shared network reaches nothing in the project.
func (p *Project) Resolve(client, host string) Reach {
	host = strings.ToLower(strings.Trim(host, "[]"))
	svc := p.Model.Services[client]
	if ip, ok := extraHost(svc, host); ok {
		return Reach{Code: "UDS140", Refuse: func(db string) string {
			return fmt.Sprintf("extra_hosts maps %s to %s (an /etc/hosts entry, which wins over Docker's DNS), not to the service %s", host, ip, db)
		}}
	}
	if mode := svc.NetworkMode; mode != "" {
		return Reach{Code: "UDS142", Refuse: func(db string) string { return networkModeNote(client, mode, db) }}
	}
	if target, ok := LinkAliases(svc)[host]; ok {
		return Reach{Services: []string{target}}
	}
	mine := map[string]bool{}
	for nw := range svc.Networks {
		mine[p.NetworkName(nw)] = true
	}
	var out []string
	for _, c := range p.NameIndex()[host] {
		if mine[c.Network] && c.Service != client && !slices.Contains(out, c.Service) {
			out = append(out, c.Service)
		}
	}
	return Reach{Services: out}
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
