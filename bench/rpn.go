package bench

import (
	"strconv"
	"strings"
)

// rpn writes e in reverse Polish notation for the JDBC client's
// interpreter (BenchJdbc.java): "n:5", "v:rows", "op:+", "random", space
// separated, so the JVM evaluates exactly the expression tree this package
// parsed.
func rpn(e expr, out []string) []string {
	switch e := e.(type) {
	case numExpr:
		return append(out, "n:"+strconv.FormatInt(int64(e), 10))
	case varExpr:
		return append(out, "v:"+string(e))
	case binExpr:
		return append(rpn(e.r, rpn(e.l, out)), "op:"+string(e.op))
	case randomExpr:
		return append(rpn(e.hi, rpn(e.lo, out)), "random")
	}
	panic("bench: unknown expression type")
}

// jdbcSQL rewrites sql's :variables among known into JDBC "?" parameters
// and returns them in order, by bindVars' rule (a "::type" cast or an
// unknown :name stays as it is).
func jdbcSQL(sql string, known map[string]bool) (string, []string) {
	var b strings.Builder
	var names []string
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		if c != ':' || (i > 0 && sql[i-1] == ':') || (i+1 < len(sql) && sql[i+1] == ':') {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(sql) && isNameByte(sql[j]) {
			j++
		}
		if !known[sql[i+1:j]] {
			b.WriteByte(c)
			continue
		}
		names = append(names, sql[i+1:j])
		b.WriteByte('?')
		i = j - 1
	}
	return b.String(), names
}

// jdbcProgram is the script as BenchJdbc.java reads it: one line per step,
// "set\tNAME\tRPN" or "sql\tBASE64(SQL)\tNAMES".
func (s *Script) jdbcProgram(defines map[string]int64, b64 func(string) string) []string {
	known := map[string]bool{}
	for k := range defines {
		known[k] = true
	}
	for _, st := range s.steps {
		if st.expr != nil {
			known[st.setVar] = true
		}
	}
	var lines []string
	for _, st := range s.steps {
		if st.expr != nil {
			lines = append(lines, "set\t"+st.setVar+"\t"+strings.Join(rpn(st.expr, nil), " "))
			continue
		}
		sql, names := jdbcSQL(st.sql, known)
		lines = append(lines, "sql\t"+b64(sql)+"\t"+strings.Join(names, " "))
	}
	return lines
}
