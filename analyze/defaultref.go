package analyze

import (
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/internal/interp"
)

// A value written as one reference with a default, ${NAME:-default} or
// ${NAME-default}, holds its connection string in the default when compose
// uses it: ":-" when NAME is unset or empty, "-" when NAME is unset
// (Compose Specification, "Interpolation"; compose-go template.Substitute).

// MaskValue masks v's text for a rewriter. When v is a reference whose
// default compose uses, the default is what gets rewritten: enclose (non-nil
// then) puts the reference back around the rewritten text.
func MaskValue(p *Project, v compose.EnvVar) (interp.Masked, func(interp.Masked, string) (interp.Masked, string), error) {
	d, ok := compose.UsedDefault(v.Raw, p.Env)
	if !ok {
		m, err := interp.Mask(v.Raw)
		return m, nil, err
	}
	m, err := interp.Mask(d.Def)
	enclose := func(m interp.Masked, out string) (interp.Masked, string) {
		return m.Enclose(out, "${"+d.Name+d.Op, "}")
	}
	return m, enclose, err
}

// RedactValue masks passwords in raw for reports, inside the default of a
// reference too.
func RedactValue(p *Project, dname, raw string) string {
	if d, ok := compose.UsedDefault(raw, p.Env); ok {
		return "${" + d.Name + d.Op + dialect.Redact(dname, d.Def) + "}"
	}
	return dialect.Redact(dname, raw)
}
