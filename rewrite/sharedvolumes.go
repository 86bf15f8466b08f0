package rewrite

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A volumes: list shared through a YAML anchor (issue #21) is one list for
// every service that uses it: appending the socket mount there mounts the
// socket on all of them. Under the official image's trust authentication
// that mount is a superuser login, so the shared list is edited only when
// each of its users gets the mount in this step (pl.clients.mounting);
// otherwise the change stays on the services that read the value.

// volumesUsers lists the services of src whose volumes: is the list seq:
// written in them, aliased (volumes: *x) or merged (<<: *x).
func (pl *planner) volumesUsers(src *Source, seq *yaml.Node) []string {
	svcs := servicesMapping(src)
	if svcs == nil {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(svcs.Content); i += 2 {
		if _, v := mapGet(deref(svcs.Content[i+1]), "volumes"); deref(v) == seq {
			out = append(out, svcs.Content[i].Value)
		}
	}
	return out
}

// mountedByAll reports whether every service using the list seq (besides
// service) gets the mount being added in this step.
func (pl *planner) mountedByAll(src *Source, seq *yaml.Node, service string) bool {
	for _, u := range pl.volumesUsers(src, seq) {
		if u != service && !pl.clients.mounting[u] {
			return false
		}
	}
	return true
}

// ownVolumes gives service a volumes: list of its own: the shared list's
// items, then item. kn/own are the service's own key and alias when it
// wrote volumes: *x (replaced), nil when the list is merged.
func (pl *planner) ownVolumes(src *Source, svc *yaml.Node, service string, kn, own, shared *yaml.Node, item string) {
	items, ok := scalarItems(shared)
	if !ok || (own != nil && own.Line != kn.Line) {
		pl.findings.add("UDS111", nodePos(src, svc), service, "volumes",
			"volumes: comes from an anchor that services without the socket share, in a form the tool does not copy (long syntax, or an alias on its own line); add "+item+" to "+service+" by hand")
		return
	}
	pl.compose.newKeys = append(pl.compose.newKeys, &pendingKey{src: src, svc: svc, items: append(items, item), key: kn, alias: own})
}

// shieldMergers gives each service that merges service's own volumes:
// list (<<: *service) a copy of it, so that an entry appended for service
// does not reach them.
func (pl *planner) shieldMergers(src *Source, seq *yaml.Node, service string) {
	items, ok := scalarItems(seq)
	svcs := servicesMapping(src)
	for _, u := range pl.volumesUsers(src, seq) {
		if u == service || pl.clients.mounting[u] {
			continue
		}
		_, node := ownKey(svcs, u)
		node = deref(node)
		if slices.ContainsFunc(pl.compose.newKeys, func(pk *pendingKey) bool { return pk.svc == node }) {
			continue
		}
		if !ok {
			pl.findings.add("UDS111", nodePos(src, node), u, "volumes",
				u+" merges the volumes: list of "+service+", which gets the socket mount, in long syntax: give "+u+" a volumes: list of its own by hand so it does not mount the socket")
			continue
		}
		pl.compose.newKeys = append(pl.compose.newKeys, &pendingKey{src: src, svc: node, items: slices.Clone(items)})
	}
}

// replaceAlias writes a pending key's items in place of its volumes: *x
// alias: the alias goes, the block list follows the key's line.
func (pl *planner) replaceAlias(pk *pendingKey) {
	src, kn, al := pk.src, pk.key, pk.alias
	colon := src.offset(kn.Line, kn.Column) + len(kn.Value)
	end := src.offset(al.Line, al.Column) + 1 + len(al.Value)
	if colon >= len(src.Data) || src.Data[colon] != ':' || end > len(src.Data) || string(src.Data[end-len(al.Value)-1:end]) != "*"+al.Value {
		pl.findings.add("UDS111", nodePos(src, kn), pl.serviceOf(pk.svc), "volumes", "cannot replace the alias *"+al.Value+" exactly; give the service its own volumes: list by hand: "+strings.Join(pk.items, ", "))
		return
	}
	pl.add(edit{src: src, start: colon + 1, end: end, text: ""})
	var b strings.Builder
	ind := strings.Repeat(" ", kn.Column-1+detectLayout(src).seqIndent)
	for _, it := range pk.items {
		b.WriteString(ind + "- " + it + "\n")
	}
	pl.insertAfterLine(src, kn.Line, b.String())
}
