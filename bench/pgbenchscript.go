package bench

import (
	"fmt"
	"strings"
)

// ParsePgbenchScript reads any script pgbench runs. When the in-process
// interpreter (ParseScript) also runs it, the result is ParseScript's;
// otherwise (\sleep, \gset, \if, random_zipfian, ...) the Script keeps the
// text for pgbench, counts its SQL commands loosely for queries/s, and
// InProcess says why the in-process clients cannot run it. It errors only
// when the text holds no SQL command at all.
func ParsePgbenchScript(name, text string, defines map[string]int64) (*Script, error) {
	s, err := ParseScript(name, text)
	if err == nil {
		err = s.Check(defines)
		if err == nil {
			return s, nil
		}
	}
	n := countCommands(text)
	if n == 0 {
		return nil, fmt.Errorf("%s: no SQL command", name)
	}
	return &Script{Name: name, Text: text, inProcess: err, commands: n}, nil
}

// InProcess is nil when the in-process clients (pgx, jdbc) can run the
// script, else the reason (name:line: what it does not support).
func (s *Script) InProcess() error { return s.inProcess }

// countCommands counts the SQL commands of one pass of a pgbench script:
// a command ends at a ";" ending a line, at \gset or \aset (which end the
// query they follow), or at the end of the text; meta-command lines and
// "--" comments are not SQL.
func countCommands(text string) int {
	n := 0
	pending := false
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || strings.HasPrefix(line, "--"):
		case strings.HasPrefix(line, `\`):
			if pending && (strings.HasPrefix(line, `\gset`) || strings.HasPrefix(line, `\aset`)) {
				n++
				pending = false
			}
		default:
			pending = true
			if strings.HasSuffix(line, ";") || endsWithMeta(line, `\gset`) || endsWithMeta(line, `\aset`) ||
				strings.Contains(line, `\gset `) || strings.Contains(line, `\aset `) {
				n++
				pending = false
			}
		}
	}
	if pending {
		n++
	}
	return n
}

func endsWithMeta(line, meta string) bool {
	if strings.HasSuffix(line, meta) {
		return true
	}
	i := strings.LastIndex(line, meta+" ")
	return i >= 0 && !strings.Contains(line[i:], ";")
}
