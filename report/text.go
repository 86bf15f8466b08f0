package report

import (
	"fmt"
	"io"
	"strings"
)

// Lines writes one "file:line:col: SEVERITY CODE: message" line per finding,
// the form migrate prints on stderr and validate on stdout.
func Lines(w io.Writer, p Plan) error {
	var b strings.Builder
	for _, f := range MergeShared(p.Findings) {
		b.WriteString(line(f))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func line(f Finding) string {
	pos := f.File
	if f.Line > 0 {
		pos = fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	}
	return fmt.Sprintf("%s: %s %s: %s", pos, f.Severity, f.Code, f.Message)
}

// Text writes the plan for a reviewer.
func Text(w io.Writer, p Plan) error {
	var b strings.Builder
	if p.Nothing != "" {
		fmt.Fprintf(&b, "nothing to migrate: %s\n", p.Nothing)
	}
	if len(p.Databases) > 0 {
		b.WriteString("databases:\n")
		for _, d := range p.Databases {
			fmt.Fprintf(&b, "  %s (%s image): socket directory %s, port %d, socket volume %s; reached as %s\n",
				d.Service, d.Family, d.SocketDir, d.Port, d.Volume, strings.Join(d.Names, ", "))
		}
	}
	if len(p.Changes) > 0 {
		b.WriteString("changes:\n")
		for _, c := range p.Changes {
			pos := c.File
			if c.Line > 0 {
				pos = fmt.Sprintf("%s:%d:%d", c.File, c.Line, c.Column)
			}
			switch c.Kind {
			case "value", "repair":
				fmt.Fprintf(&b, "  %s %s %s (%s): %s\n    - %s\n    + %s\n", pos, c.Service, c.Key, c.Dialect, c.Reason, c.Before, c.After)
				if e := c.Evidence; e != nil {
					fmt.Fprintf(&b, "    because (%s) %s:%d: %s; driver %s\n", e.Source, e.File, e.Line, e.Reason, e.Driver)
				}
			case "mount":
				fmt.Fprintf(&b, "  %s %s: mount %s (%s)\n", pos, c.Service, c.After, c.Reason)
			case "volume":
				fmt.Fprintf(&b, "  %s: declare volume %s (%s)\n", pos, c.After, c.Reason)
			}
		}
	}
	if len(p.Findings) > 0 {
		b.WriteString("findings:\n")
		for _, f := range MergeShared(p.Findings) {
			fmt.Fprintf(&b, "  %s:%d:%d: %s %s: %s\n", f.File, f.Line, f.Column, f.Severity, f.Code, f.Message)
		}
	}
	if len(p.ManualSteps) > 0 {
		b.WriteString("manual steps:\n")
		for i, s := range p.ManualSteps {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, s)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
