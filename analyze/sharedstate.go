package analyze

import (
	"fmt"
	"path"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// StateShare is a service that reads a migrated client's connection from
// the state volume they share (catalog state_dir): Nextcloud's cron runs
// cron.php, which loads the config.php the app's install wrote, dbhost
// included.
type StateShare struct {
	Service, From string
	DB            *DB
}

// sharedState finds such services: they get the socket mount with the
// client whose value moved, or they keep dialling the host the file
// names, now a directory they cannot reach.
type sharedState struct{ cl *collector }

// find returns, for the edges about to be rewritten, the services that
// run the same catalogued image with a state_dir and mount the same
// volume there, without a value of their own; each is reported (UDS136).
// An edge whose sharer the selection leaves out (--exclude, --only) is
// dropped and left on TCP (UDS160): the sharer would read the socket
// directory without the socket. kept are the other edges.
func (s sharedState) find(edges []*Edge) (shares []StateShare, kept []*Edge) {
	cl := s.cl
	edged := map[string]bool{}
	for _, e := range edges {
		edged[e.Var.Service] = true
	}
	selected := map[string]bool{}
	for _, y := range cl.clientServices() {
		selected[y] = true
	}
	var out []StateShare
	seen := map[string]bool{}
	for _, e := range edges {
		c := catalog.Lookup(cl.p.Model.Services[e.Var.Service].Image)
		vol := ""
		if c != nil && c.StateDir != "" {
			vol = stateVolume(cl.p.Project, e.Var.Service, c.StateDir)
		}
		if vol == "" {
			kept = append(kept, e)
			continue
		}
		var mine []StateShare
		left := ""
		for _, y := range cl.p.ServiceOrder() {
			cy := catalog.Lookup(cl.p.Model.Services[y].Image)
			if y == e.Var.Service || edged[y] || cy == nil || cy.Family != c.Family || stateVolume(cl.p.Project, y, c.StateDir) != vol {
				continue
			}
			if !selected[y] {
				left = y
				break
			}
			mine = append(mine, StateShare{Service: y, From: e.Var.Service, DB: e.DB})
		}
		if left != "" {
			cl.note("UDS160", e.Var.Pos, e.Var.Service, e.Var.Key,
				fmt.Sprintf("%s/%s is written into the state volume %s at %s, which %s also reads (the same %s image), and the selection leaves %s out: %s would read a socket directory without the socket, so %s/%s is left on TCP; select both to migrate it",
					e.Var.Service, e.Var.Key, vol, c.StateDir, left, c.Family, left, left, e.Var.Service, e.Var.Key))
			continue
		}
		kept = append(kept, e)
		for _, sh := range mine {
			y := sh.Service
			if seen[y+"\x00"+e.DB.Name] {
				continue
			}
			seen[y+"\x00"+e.DB.Name] = true
			out = append(out, sh)
			src, node := cl.p.ServiceNode(y)
			at := yamledit.NodePos(src, node)
			if kn, _ := yamledit.OwnKey(compose.ServicesMapping(src), y); kn != nil {
				at = yamledit.NodePos(src, kn)
			}
			b := hostvar.CatalogueBasis(c, "the image keeps the connection it was set up with in "+c.StateDir)
			cl.note("UDS136", at, y, "volumes",
				fmt.Sprintf("%s mounts %s's socket volume too: it runs the %s image with %s's volume %s at %s, where the image keeps the connection it was set up with, so it reads the socket directory %s/%s now names (%s)",
					y, e.DB.Name, c.Family, e.Var.Service, vol, c.StateDir, e.Var.Service, e.Var.Key, b.Citation())).Basis = &b
		}
	}
	return out, kept
}

// stateVolume returns the source of the service's mount at dir, or "".
func stateVolume(p *compose.Project, service, dir string) string {
	for _, m := range p.ServiceMounts(service) {
		if path.Clean(m.Target) == dir {
			return m.Source
		}
	}
	return ""
}
