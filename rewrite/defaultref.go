package rewrite

import (
	"fmt"
	"regexp"

	"github.com/uds-migrate/uds-migrate/internal/interp"
)

// A value written as one reference with a default, ${NAME:-default} or
// ${NAME-default}, holds its connection string in the default when compose
// uses it: ":-" when NAME is unset or empty, "-" when NAME is unset
// (Compose Specification, "Interpolation"; compose-go template.Substitute).

var defaultRefRE = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)(:?-)((?s).*)\}$`)

// defaultRef is a whole-value reference whose default compose uses.
type defaultRef struct {
	name, op, def string
}

// usedDefault returns the reference raw consists of when compose takes its
// default with the interpolation environment env.
func usedDefault(raw string, env map[string]string) (defaultRef, bool) {
	m, err := interp.Mask(raw)
	if err != nil || len(m.Refs) != 1 || m.Refs[0] != raw {
		return defaultRef{}, false
	}
	sub := defaultRefRE.FindStringSubmatch(raw)
	if sub == nil {
		return defaultRef{}, false
	}
	v, set := env[sub[1]]
	if set && (sub[2] == "-" || v != "") {
		return defaultRef{}, false
	}
	return defaultRef{name: sub[1], op: sub[2], def: sub[3]}, true
}

// maskValue masks v's text for a rewriter. When v is a reference whose
// default compose uses, the default is what gets rewritten: enclose (non-nil
// then) puts the reference back around the rewritten text.
func (pl *planner) maskValue(v envVar) (interp.Masked, func(interp.Masked, string) (interp.Masked, string), error) {
	d, ok := usedDefault(v.raw, pl.p.env)
	if !ok {
		m, err := interp.Mask(v.raw)
		return m, nil, err
	}
	m, err := interp.Mask(d.def)
	enclose := func(m interp.Masked, out string) (interp.Masked, string) {
		return m.Enclose(out, "${"+d.name+d.op, "}")
	}
	return m, enclose, err
}

// warnDefault says that the rewritten default only applies while the
// variable is empty or unset. The message quotes no value (a default may
// hold a password).
func (pl *planner) warnDefault(v envVar) {
	d, ok := usedDefault(v.raw, pl.p.env)
	if !ok {
		return
	}
	when := "a non-empty " + d.name
	if d.op == "-" {
		when = d.name + " set to anything, even the empty string,"
	}
	pl.findings.add("UDS143", v.pos, v.service, v.key,
		fmt.Sprintf("%s/%s is ${%s%s...}: the default inside the reference now reaches the socket, but %s in the environment or .env overrides it and stays as it is (on TCP)", v.service, v.key, d.name, d.op, when))
}

// redactValue masks passwords in raw for reports, inside the default of a
// reference too.
func (pl *planner) redactValue(dialect, raw string) string {
	if d, ok := usedDefault(raw, pl.p.env); ok {
		return "${" + d.name + d.op + redact(dialect, d.def) + "}"
	}
	return redact(dialect, raw)
}
