package rewrite

import (
	"context"
	"fmt"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/revert"
	"github.com/uds-migrate/uds-migrate/validate"
)

// Revert is the inverse migration, for moving to Kubernetes or to separate
// hosts: every client value that reaches a database through its socket
// volume goes back to TCP (host = the database service, port = its server
// port), the socket mounts are removed from clients and database, and the
// named volume is removed when nothing else mounts it. SSL settings that the
// migration removed are not restored (the migration said so when it removed
// them).
func Revert(ctx context.Context, inputs []Input, opts Options) (res *Result, err error) {
	defer func() { err = validate.ScrubErr(err, compose.InputSecrets(inputs)) }()
	p, err := analyze.Load(ctx, inputs, opts)
	if err != nil {
		return nil, err
	}
	res, err = revert.Loaded(p, opts)
	if err != nil {
		return nil, err
	}
	if res.Changed() {
		out, opts2, err := analyze.Reload(ctx, inputs, res, opts)
		if err != nil {
			return nil, fmt.Errorf("internal error: the reverted output does not load: %w", err)
		}
		if bad := validate.NewErrors(validate.Loaded(p, opts), validate.Loaded(out, opts2)); len(bad) > 0 {
			return nil, &validate.Error{Findings: bad, Revert: true}
		}
	}
	return res, nil
}
