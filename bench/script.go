package bench

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Script is a parsed pgbench script: the subset of pgbench's syntax that
// both pgbench itself and the in-process pgx client run identically, so the
// two can be compared query for query.
//
// Supported: SQL commands ending in ";" at the end of a line (they may span
// lines), "-- comment" lines, `\set NAME EXPR` with integer expressions of
// literals, :variables, + - * / %, parentheses and random(LO, HI), and
// :NAME references in SQL. Other meta-commands (\sleep, \gset, \if, \shell,
// ...) are rejected with their line number.
type Script struct {
	// Name identifies the script in reports (a workload name or a file
	// name).
	Name string
	// Text is the script as given, for pgbench.
	Text  string
	steps []step
	// inProcess is why the in-process interpreter cannot run Text; steps
	// is then empty and commands counts its SQL commands.
	inProcess error
	commands  int
}

// step is one line of work: either a \set (expr != nil) or a SQL command.
type step struct {
	line int
	// \set
	setVar string
	expr   expr
	// SQL
	sql    string
	tokens []sqlToken
}

// Queries returns how many SQL commands one pass of the script runs: the
// factor between pgbench's transactions/s and queries/s.
func (s *Script) Queries() int {
	if s.inProcess != nil {
		return s.commands
	}
	n := 0
	for _, st := range s.steps {
		if st.expr == nil {
			n++
		}
	}
	return n
}

// ParseScript parses pgbench script text. Errors carry name:line.
func ParseScript(name, text string) (*Script, error) {
	s := &Script{Name: name, Text: text}
	var sql strings.Builder
	sqlLine := 0
	flush := func() {
		if q := strings.TrimSpace(sql.String()); q != "" {
			q = strings.TrimSuffix(q, ";")
			s.steps = append(s.steps, step{line: sqlLine, sql: q, tokens: sqlTokens(q)})
		}
		sql.Reset()
	}
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || strings.HasPrefix(line, "--"):
			continue
		case strings.HasPrefix(line, `\`):
			if sql.Len() > 0 {
				return nil, fmt.Errorf("%s:%d: meta-command inside an unterminated SQL command (end SQL with ';')", name, i+1)
			}
			st, err := parseMeta(line)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
			}
			st.line = i + 1
			s.steps = append(s.steps, st)
		default:
			if sql.Len() == 0 {
				sqlLine = i + 1
			}
			sql.WriteString(raw)
			sql.WriteByte('\n')
			if strings.HasSuffix(line, ";") {
				flush()
			}
		}
	}
	flush()
	if s.Queries() == 0 {
		return nil, fmt.Errorf("%s: no SQL command", name)
	}
	return s, nil
}

func parseMeta(line string) (step, error) {
	fields := strings.Fields(line)
	if fields[0] != `\set` {
		return step{}, fmt.Errorf("unsupported meta-command %s (bench runs SQL and \\set NAME EXPR only)", fields[0])
	}
	if len(fields) < 3 {
		return step{}, fmt.Errorf(`\set needs a name and an expression`)
	}
	name := fields[1]
	if !varNameRE.MatchString(name) {
		return step{}, fmt.Errorf(`\set: invalid variable name %q`, name)
	}
	rest := strings.TrimSpace(line[strings.Index(line, name)+len(name):])
	e, err := parseExpr(rest)
	if err != nil {
		return step{}, fmt.Errorf(`\set %s: %w`, name, err)
	}
	return step{setVar: name, expr: e}, nil
}

var varNameRE = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// Check reports the first variable used before any \set or define gives it
// a value, as name:line. defines are pgbench's -D NAME=VALUE.
func (s *Script) Check(defines map[string]int64) error {
	known := map[string]bool{}
	for k := range defines {
		known[k] = true
	}
	for _, st := range s.steps {
		if st.expr != nil {
			for _, v := range st.expr.vars(nil) {
				if !known[v] {
					return fmt.Errorf("%s:%d: variable :%s used before it is set", s.Name, st.line, v)
				}
			}
			known[st.setVar] = true
		}
	}
	return nil
}

// Bound is one SQL command ready to send: SQL holds $1..$n where the
// script had :variables, Args their values (for the extended and prepared
// protocols); Literal holds the values spliced in as text (for the simple
// protocol, as pgbench does).
type Bound struct {
	SQL     string
	Args    []any
	Literal string
}

// Runner walks a Script pass after pass for one connection, keeping its
// own variables and random stream.
type Runner struct {
	script *Script
	vars   map[string]int64
	rng    *rand.Rand
	pos    int
	cache  []bindCache // per step, for NextCommand
}

// NewRunner starts at the top of s with the given defines; seed fixes the
// random stream (give each connection its own).
func (s *Script) NewRunner(defines map[string]int64, seed uint64) *Runner {
	vars := make(map[string]int64, len(defines))
	for k, v := range defines {
		vars[k] = v
	}
	return &Runner{script: s, vars: vars, rng: rand.New(rand.NewPCG(seed, 0x5bd1e995))}
}

// Next evaluates \set steps up to the next SQL command and returns it
// bound to the current variables, wrapping to the top after the last one.
func (r *Runner) Next() (Bound, error) {
	for {
		st := r.script.steps[r.pos]
		r.pos = (r.pos + 1) % len(r.script.steps)
		if st.expr != nil {
			v, err := st.expr.eval(r)
			if err != nil {
				return Bound{}, fmt.Errorf("%s:%d: %w", r.script.Name, st.line, err)
			}
			r.vars[st.setVar] = v
			continue
		}
		return bindVars(st.sql, r.vars), nil
	}
}

// bindVars replaces each :name whose variable is set; other text, including
// "::type" casts and ":30" in '12:30' when no variable 30 exists, stays as
// is (pgbench's rule). Every occurrence gets its own $n, as in pgbench.
func bindVars(sql string, vars map[string]int64) Bound {
	var ps, lit strings.Builder
	var args []any
	for _, t := range sqlTokens(sql) {
		v, ok := vars[t.name]
		if t.name == "" || !ok {
			ps.WriteString(t.text)
			lit.WriteString(t.text)
			continue
		}
		args = append(args, v)
		ps.WriteString("$" + strconv.Itoa(len(args)))
		lit.WriteString(strconv.FormatInt(v, 10))
	}
	return Bound{SQL: ps.String(), Args: args, Literal: lit.String()}
}

// isNameByte is pgbench's variable-name character: a letter, digit or _.
func isNameByte(c byte) bool {
	return c == '_' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))
}
