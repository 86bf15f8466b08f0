package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// Command is one SQL command ready to send, written into buffers the
// caller reuses from query to query, so the in-process client's per-query
// work is the protocol's and not the binding's allocations (pgbench binds
// into reused buffers too).
type Command struct {
	// Step identifies the script's SQL command (stable across passes): a
	// client caches one prepared statement per Step.
	Step int
	// SQL holds $1..$n where the script had set :variables.
	SQL string
	// Params holds each $n's value as text (format code 0), as libpq and
	// so pgbench send them.
	Params [][]byte
	// Literal is SQL with the values spliced in, for the simple protocol;
	// filled only when asked for.
	Literal []byte
}

// bindCache is one Runner's last binding of one SQL step: the SQL text is
// rebuilt only when the set of defined variables it mentions changes.
type bindCache struct {
	set []bool
	sql string
}

// NextCommand is Next written into c: it evaluates \set steps up to the
// next SQL command and binds it; literal also fills c.Literal.
func (r *Runner) NextCommand(c *Command, literal bool) error {
	for {
		i := r.pos
		st := &r.script.steps[i]
		r.pos = (r.pos + 1) % len(r.script.steps)
		if st.expr != nil {
			v, err := st.expr.eval(r)
			if err != nil {
				return fmt.Errorf("%s:%d: %w", r.script.Name, st.line, err)
			}
			r.vars[st.setVar] = v
			continue
		}
		r.bind(i, st.tokens, c, literal)
		return nil
	}
}

func (r *Runner) bind(step int, toks []sqlToken, c *Command, literal bool) {
	if r.cache == nil {
		r.cache = make([]bindCache, len(r.script.steps))
	}
	bc := &r.cache[step]
	if bc.set == nil || !r.sameSet(toks, bc.set) {
		bc.set = r.setOf(toks)
		bc.sql = placeholders(toks, bc.set)
	}
	c.Step, c.SQL = step, bc.sql
	c.Params = c.Params[:0]
	c.Literal = c.Literal[:0]
	for j, t := range toks {
		if !bc.set[j] {
			if literal {
				c.Literal = append(c.Literal, t.text...)
			}
			continue
		}
		v := r.vars[t.name]
		k := len(c.Params)
		if k < cap(c.Params) {
			c.Params = c.Params[:k+1]
		} else {
			c.Params = append(c.Params, nil)
		}
		c.Params[k] = strconv.AppendInt(c.Params[k][:0], v, 10)
		if literal {
			c.Literal = append(c.Literal, c.Params[k]...)
		}
	}
}

func (r *Runner) sameSet(toks []sqlToken, set []bool) bool {
	for j, t := range toks {
		if t.name == "" {
			continue
		}
		if _, ok := r.vars[t.name]; ok != set[j] {
			return false
		}
	}
	return true
}

func (r *Runner) setOf(toks []sqlToken) []bool {
	set := make([]bool, len(toks))
	for j, t := range toks {
		if t.name != "" {
			_, set[j] = r.vars[t.name]
		}
	}
	return set
}

// placeholders is the SQL with a $n for each set variable.
func placeholders(toks []sqlToken, set []bool) string {
	var b strings.Builder
	n := 0
	for j, t := range toks {
		if set[j] {
			n++
			b.WriteString("$" + strconv.Itoa(n))
		} else {
			b.WriteString(t.text)
		}
	}
	return b.String()
}

// sqlToken is a piece of a SQL command: plain text, or a :name reference
// (text holds ":name" as written, for when no such variable is set).
type sqlToken struct {
	text string
	name string
}

// sqlTokens splits sql at its :name references by pgbench's rule: a ":"
// next to another ":" (a "::type" cast) is text.
func sqlTokens(sql string) []sqlToken {
	var toks []sqlToken
	start := 0
	for i := 0; i < len(sql); i++ {
		if sql[i] != ':' || (i > 0 && sql[i-1] == ':') || (i+1 < len(sql) && sql[i+1] == ':') {
			continue
		}
		j := i + 1
		for j < len(sql) && isNameByte(sql[j]) {
			j++
		}
		if j == i+1 {
			continue
		}
		if start < i {
			toks = append(toks, sqlToken{text: sql[start:i]})
		}
		toks = append(toks, sqlToken{text: sql[i:j], name: sql[i+1 : j]})
		start = j
		i = j - 1
	}
	if start < len(sql) {
		toks = append(toks, sqlToken{text: sql[start:]})
	}
	return toks
}
