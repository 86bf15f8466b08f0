package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats names the output formats, in the order help text lists them.
var Formats = []string{"text", "json", "sarif", "gcc"}

// CheckFormat returns an error naming the formats when f is not one.
func CheckFormat(f string) error {
	for _, k := range Formats {
		if f == k {
			return nil
		}
	}
	return fmt.Errorf("--format %q: want %s or %s", f, strings.Join(Formats[:len(Formats)-1], ", "), Formats[len(Formats)-1])
}

// Structured reports whether format f is meant for tools (json, sarif, gcc):
// those carry input errors as findings.
func Structured(f string) bool { return f == "json" || f == "sarif" || f == "gcc" }

// Write renders p in format json, sarif or gcc; text is the caller's (a
// plan reads differently from a list of findings: see Text and Lines).
// tool says which build wrote it and where SARIF URIs are rooted.
func Write(w io.Writer, format string, p Plan, tool Tool) error {
	switch format {
	case "json":
		return JSON(w, p)
	case "sarif":
		return SARIF(w, p, tool)
	case "gcc":
		return GCC(w, p)
	}
	return CheckFormat(format)
}

// JSON writes the plan as indented JSON (docs/plan.schema.json).
func JSON(w io.Writer, p Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(p)
}

// GCC writes one line per finding in the shape gcc, shellcheck -f gcc and
// editor/CI problem matchers read: "file:line:col: warning: message [UDS120]"
// (severity error, warning or note; "file: ..." when a finding has no line).
func GCC(w io.Writer, p Plan) error {
	var b strings.Builder
	for _, f := range p.Findings {
		pos := f.File
		if f.Line > 0 {
			pos = fmt.Sprintf("%s:%d:%d", f.File, f.Line, max(f.Column, 1))
		}
		if pos == "" {
			pos = "uds-migrate"
		}
		fmt.Fprintf(&b, "%s: %s: %s [%s]\n", OneLine(pos), gccLevel(f.Severity), OneLine(f.Message), f.Code)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine escapes the line breaks a message can carry (a block scalar's
// value quoted in it) as \n and \r.
var oneLine = strings.NewReplacer("\r\n", `\r\n`, "\n", `\n`, "\r", `\r`)

// OneLine returns s with its line breaks escaped (\n, \r), so that a
// finding stays one line in the line-oriented formats (gcc, text): a
// problem matcher reads one finding per line.
func OneLine(s string) string { return oneLine.Replace(s) }

func gccLevel(sev string) string {
	switch sev {
	case "ERROR":
		return "error"
	case "INFO":
		return "note"
	}
	return "warning"
}
