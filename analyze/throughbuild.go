package analyze

import "github.com/uds-migrate/uds-migrate/finding"

// throughBuilds records, on each evidence basis of the edges and notes,
// how its file reaches the service when the service runs the image
// another service of the project builds (hostvar.Scopes.ThroughBuild):
// the plan then says the evidence came through that build. A basis is
// copied before it is changed: one may be shared by several services.
func throughBuilds(cl *collector, edges []*Edge, notes []Note) {
	via := func(service string, b *finding.Basis) *finding.Basis {
		if b == nil || b.Kind != finding.BasisEvidence || b.Via != "" {
			return b
		}
		t := cl.scopes.ThroughBuild(service, b.At.File)
		if t == "" {
			return b
		}
		c := *b
		c.Via = t
		return &c
	}
	for _, e := range edges {
		e.Basis = via(e.Var.Service, e.Basis)
	}
	for i := range notes {
		n := &notes[i].Finding
		n.Basis = via(n.Service, n.Basis)
	}
}
