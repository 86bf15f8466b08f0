package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/uds-migrate/uds-migrate/finding"
)

// Style is how text is written for a person at a terminal; the zero Style
// is the plain form scripts and goldens read (one line per finding).
type Style struct {
	// Color marks severities, positions and carets with ANSI colours.
	Color bool
	// Width wraps a finding's message at this many columns, indented
	// under its position, and shortens a quoted source line to it (0: no
	// wrapping).
	Width int
	// Source returns a file's lines; with it, a finding at a line is
	// followed by that line and a caret under its column (as shellcheck
	// and actionlint show them). nil: no snippet.
	Source func(file string) []string
}

// ANSI SGR sequences (ECMA-48).
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrCyan   = "\x1b[36m"
)

func (s Style) paint(sgr, text string) string {
	if !s.Color || text == "" {
		return text
	}
	return sgr + text + sgrReset
}

func (s Style) severity(sev string) string {
	switch sev {
	case string(finding.SevError):
		return s.paint(sgrBold+sgrRed, sev)
	case string(finding.SevWarning):
		return s.paint(sgrBold+sgrYellow, sev)
	}
	return s.paint(sgrBold+sgrCyan, sev)
}

// Lines writes one "file:line:col: SEVERITY CODE: message" line per finding,
// the form migrate prints on stderr and validate on stdout.
func Lines(w io.Writer, p Plan) error { return StyledLines(w, p, Style{}) }

// StyledLines is Lines in a Style: each finding once (findings one line
// gives for several services merged, exact repeats dropped), wrapped, with
// its source line and a caret.
func StyledLines(w io.Writer, p Plan, st Style) error {
	var b strings.Builder
	for _, f := range unique(MergeShared(p.Findings)) {
		b.WriteString(st.finding(f, ""))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// unique drops findings identical to an earlier one (the same file,
// position, code and message: a value that two steps report alike).
func unique(fs []Finding) []Finding {
	seen := map[string]bool{}
	var out []Finding
	for _, f := range fs {
		k := strings.Join([]string{f.File, itoa(f.Line), itoa(f.Column), f.Code, f.Message}, "\x00")
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

func position(f Finding) string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d:%d", OneLine(f.File), f.Line, f.Column)
	}
	return OneLine(f.File)
}

// finding renders one finding after indent: its line (wrapped at Width),
// then the source snippet when Source has the line.
func (st Style) finding(f Finding, indent string) string {
	head := fmt.Sprintf("%s: %s %s: ", st.paint(sgrBold, position(f)), st.severity(f.Severity), st.paint(sgrDim, f.Code))
	plainHead := fmt.Sprintf("%s: %s %s: ", position(f), f.Severity, f.Code)
	var b strings.Builder
	b.WriteString(indent + head)
	pad := strings.Repeat(" ", utf8.RuneCountInString(indent)) // "  1. " → under it
	if msg := OneLine(f.Message); st.Width > 0 {
		b.WriteString(wrap(msg, st.Width, utf8.RuneCountInString(indent+plainHead), pad+"    "))
	} else {
		b.WriteString(msg)
	}
	b.WriteByte('\n')
	if st.Source != nil && f.Line > 0 {
		if lines := st.Source(f.File); f.Line <= len(lines) {
			b.WriteString(st.snippet(lines[f.Line-1], f.Line, f.Column, pad))
		}
	}
	return b.String()
}

// wrap breaks text into lines of at most width columns at spaces: the
// first line has used columns taken already, the others start with
// indent. A word longer than a line stays whole.
func wrap(text string, width, used int, indent string) string {
	var b strings.Builder
	col := used
	for i, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case col+1+n > width && col > utf8.RuneCountInString(indent):
			b.WriteString("\n" + indent)
			col = utf8.RuneCountInString(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}

// snippet is the source line with a gutter ("  12 | ") and a caret under
// column col (1-based, in characters); tabs before the column are kept so
// the caret lines up. A line longer than Width is shortened around the
// column, "…" marking what is cut.
func (st Style) snippet(src string, line, col int, indent string) string {
	src = strings.TrimRight(src, "\r")
	gutter := fmt.Sprintf("%s%5d | ", indent, line)
	blank := indent + strings.Repeat(" ", 5) + " | "
	runes := []rune(src)
	if col < 1 {
		col = 1
	}
	if col > len(runes)+1 {
		col = len(runes) + 1
	}
	start, end, room := 0, len(runes), 0
	if st.Width > 0 {
		room = st.Width - utf8.RuneCountInString(gutter)
	}
	if room > 10 && len(runes) > room {
		start = max(0, col-1-room/2)
		end = min(len(runes), start+room-2)
	}
	shown := string(runes[start:end])
	caretAt := col - 1 - start
	if start > 0 {
		shown = "…" + shown
		caretAt++
	}
	if end < len(runes) {
		shown += "…"
	}
	var pad strings.Builder
	for i, r := range []rune(shown) {
		if i >= caretAt {
			break
		}
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	return st.paint(sgrDim, gutter) + shown + "\n" + st.paint(sgrDim, blank) + pad.String() + st.paint(sgrBold+sgrGreen, "^") + "\n"
}

// Text writes the plan for a reviewer.
func Text(w io.Writer, p Plan) error { return StyledText(w, p, Style{}) }

// StyledText is Text in a Style. A finding that leaves work for a person
// is listed once, as a manual step, not again among the findings.
func StyledText(w io.Writer, p Plan, st Style) error {
	var b strings.Builder
	if p.Nothing != "" {
		fmt.Fprintf(&b, "nothing to migrate: %s\n", p.Nothing)
	}
	if len(p.Databases) > 0 {
		b.WriteString("databases:\n")
		for _, d := range p.Databases {
			kind := d.Family + " image"
			if d.Image != "" {
				kind = d.Image + " image, " + d.Family + " entrypoint" // pgautoupgrade runs a copy of the official one
			}
			fmt.Fprintf(&b, "  %s (%s): socket directory %s, port %d, socket volume %s; reached as %s\n",
				d.Service, kind, d.SocketDir, d.Port, d.Volume, strings.Join(d.Names, ", "))
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
				kind := "" // a repair (a tmpfs replaced) has no dialect
				if c.Dialect != "" {
					kind = " (" + c.Dialect + ")"
				}
				fmt.Fprintf(&b, "  %s %s %s%s: %s\n    - %s\n    + %s\n", pos, c.Service, c.Key, kind, c.Reason, c.Before, c.After)
				if e := c.Evidence; e != nil {
					fmt.Fprintf(&b, "    because (%s) %s:%d: %s; driver %s\n", e.Source, e.File, e.Line, e.Reason, e.Driver)
					if e.Via != "" {
						fmt.Fprintf(&b, "    through %s\n", e.Via)
					}
				}
			case "mount":
				fmt.Fprintf(&b, "  %s %s: mount %s (%s)\n", pos, c.Service, c.After, c.Reason)
			case "volume":
				fmt.Fprintf(&b, "  %s: declare volume %s (%s)\n", pos, c.After, c.Reason)
			}
		}
	}
	var other, manual []Finding
	for _, f := range unique(MergeShared(p.Findings)) {
		if code, _ := finding.Lookup(f.Code); code.Manual {
			manual = append(manual, f)
		} else {
			other = append(other, f)
		}
	}
	if len(other) > 0 {
		b.WriteString("findings:\n")
		for _, f := range other {
			b.WriteString(st.finding(f, "  "))
		}
	}
	if len(manual) > 0 {
		b.WriteString("manual steps:\n")
		for i, f := range manual {
			b.WriteString(st.finding(f, fmt.Sprintf("  %d. ", i+1)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
