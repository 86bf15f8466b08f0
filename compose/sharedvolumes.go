package compose

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/yamledit"
)

// A volumes: list shared through a YAML anchor (issue #21) is one list for
// every service that uses it: appending the socket mount there mounts the
// socket on all of them. Under the official image's trust authentication
// that mount is a superuser login, so the shared list is edited only when
// each of its users gets the mount in this step (Mounting); otherwise the
// change stays on the services that read the value.

// Mounting names the services that get the mount being added in this
// step (a database's clients), until the returned function is called; a
// list shared through an anchor is edited in place only when all its users
// are among them.
func (e *Editor) Mounting(services map[string]bool) (done func()) {
	e.mounting = services
	return func() { e.mounting = nil }
}

// volumesUsers lists the services of src whose volumes: is the list seq:
// written in them, aliased (volumes: *x) or merged (<<: *x).
func volumesUsers(src *Source, seq *yaml.Node) []string {
	svcs := ServicesMapping(src)
	if svcs == nil {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(svcs.Content); i += 2 {
		if _, v := yamledit.MapGet(yamledit.Deref(svcs.Content[i+1]), "volumes"); yamledit.Deref(v) == seq {
			out = append(out, svcs.Content[i].Value)
		}
	}
	return out
}

// anchorLists edits volumes: lists shared through anchors for an Editor.
type anchorLists struct{ e *Editor }

// mountedByAll reports whether every service using the list seq (besides
// service) gets the mount being added in this step.
func (a anchorLists) mountedByAll(src *Source, seq *yaml.Node, service string) bool {
	e := a.e
	for _, u := range volumesUsers(src, seq) {
		if u != service && !e.mounting[u] {
			return false
		}
	}
	return true
}

// ownVolumes gives service a volumes: list of its own: the shared list's
// items, then item. kn/own are the service's own key and alias when it
// wrote volumes: *x (replaced), nil when the list is merged.
func (a anchorLists) ownVolumes(src *Source, svc *yaml.Node, service string, kn, own, shared *yaml.Node, item string) {
	e := a.e
	items, ok := yamledit.ScalarItems(shared)
	if !ok || (own != nil && own.Line != kn.Line) {
		e.rep.Add("UDS111", yamledit.NodePos(src, svc), service, "volumes",
			"volumes: comes from an anchor that services without the socket share, in a form the tool does not copy (long syntax, or an alias on its own line); add "+item+" to "+service+" by hand")
		return
	}
	e.newKeys = append(e.newKeys, &pendingKey{src: src, svc: svc, items: append(items, item), key: kn, alias: own})
}

// shieldMergers gives each service that merges service's own volumes:
// list (<<: *service) a copy of it, so that an entry appended for service
// does not reach them.
func (a anchorLists) shieldMergers(src *Source, seq *yaml.Node, service string) {
	e := a.e
	items, ok := yamledit.ScalarItems(seq)
	svcs := ServicesMapping(src)
	for _, u := range volumesUsers(src, seq) {
		if u == service || e.mounting[u] {
			continue
		}
		_, node := yamledit.OwnKey(svcs, u)
		node = yamledit.Deref(node)
		if slices.ContainsFunc(e.newKeys, func(pk *pendingKey) bool { return pk.svc == node }) {
			continue
		}
		if !ok {
			e.rep.Add("UDS111", yamledit.NodePos(src, node), u, "volumes",
				u+" merges the volumes: list of "+service+", which gets the socket mount, in long syntax: give "+u+" a volumes: list of its own by hand so it does not mount the socket")
			continue
		}
		e.newKeys = append(e.newKeys, &pendingKey{src: src, svc: node, items: slices.Clone(items)})
	}
}

// replaceAlias writes a pending key's items in place of its volumes: *x
// alias: the alias goes, the block list follows the key's line.
func (a anchorLists) replaceAlias(pk *pendingKey) {
	e := a.e
	src, kn, al := pk.src, pk.key, pk.alias
	colon := src.Offset(kn.Line, kn.Column) + len(kn.Value)
	end := src.Offset(al.Line, al.Column) + 1 + len(al.Value)
	if colon >= len(src.Data) || src.Data[colon] != ':' || end > len(src.Data) || string(src.Data[end-len(al.Value)-1:end]) != "*"+al.Value {
		e.rep.Add("UDS111", yamledit.NodePos(src, kn), e.p.ServiceOf(pk.svc), "volumes", "cannot replace the alias *"+al.Value+" exactly; give the service its own volumes: list by hand: "+strings.Join(pk.items, ", "))
		return
	}
	e.YAML(src).Replace(colon+1, end, "")
	var b strings.Builder
	ind := strings.Repeat(" ", kn.Column-1+yamledit.DetectLayout(src).SeqIndent)
	for _, it := range pk.items {
		b.WriteString(ind + "- " + it + "\n")
	}
	e.YAML(src).InsertAfterLine(kn.Line, b.String())
}
