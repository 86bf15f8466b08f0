package rewrite

import (
	"context"

	"github.com/uds-migrate/uds-migrate/validate"
)

// Validate checks a compose project that already uses Unix sockets
// (validate.Validate).
func Validate(ctx context.Context, inputs []Input, opts Options) ([]Finding, error) {
	return validate.Validate(ctx, inputs, opts)
}
