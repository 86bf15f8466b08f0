package bench

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// expr is a pgbench \set integer expression.
type expr interface {
	eval(r *Runner) (int64, error)
	// vars appends the variables the expression reads.
	vars([]string) []string
}

type (
	numExpr int64
	varExpr string
	binExpr struct {
		op   byte
		l, r expr
	}
	randomExpr struct{ lo, hi expr }
)

func (n numExpr) eval(*Runner) (int64, error) { return int64(n), nil }
func (numExpr) vars(v []string) []string      { return v }

func (v varExpr) eval(r *Runner) (int64, error) {
	x, ok := r.vars[string(v)]
	if !ok {
		return 0, fmt.Errorf("variable :%s is not set", string(v))
	}
	return x, nil
}
func (v varExpr) vars(vs []string) []string { return append(vs, string(v)) }

func (b binExpr) eval(r *Runner) (int64, error) {
	l, err := b.l.eval(r)
	if err != nil {
		return 0, err
	}
	rv, err := b.r.eval(r)
	if err != nil {
		return 0, err
	}
	switch b.op {
	case '+':
		return l + rv, nil
	case '-':
		return l - rv, nil
	case '*':
		return l * rv, nil
	}
	if rv == 0 {
		return 0, errors.New("division by zero")
	}
	if b.op == '/' {
		return l / rv, nil
	}
	return l % rv, nil
}
func (b binExpr) vars(v []string) []string { return b.r.vars(b.l.vars(v)) }

// eval draws uniformly from [lo, hi], both included, like pgbench's random.
func (e randomExpr) eval(r *Runner) (int64, error) {
	lo, err := e.lo.eval(r)
	if err != nil {
		return 0, err
	}
	hi, err := e.hi.eval(r)
	if err != nil {
		return 0, err
	}
	if hi < lo {
		return 0, fmt.Errorf("random(%d, %d): empty range", lo, hi)
	}
	return lo + r.rng.Int64N(hi-lo+1), nil
}
func (e randomExpr) vars(v []string) []string { return e.hi.vars(e.lo.vars(v)) }

// parseExpr parses expr := term {(+|-) term}; term := factor {(*|/|%)
// factor}; factor := INT | :NAME | random(expr, expr) | (expr) | -factor.
func parseExpr(s string) (expr, error) {
	p := &exprParser{toks: tokenize(s)}
	e, err := p.sum()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q", p.toks[p.i])
	}
	return e, nil
}

type exprParser struct {
	toks []string
	i    int
}

func (p *exprParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *exprParser) sum() (expr, error) {
	l, err := p.product()
	for err == nil && (p.peek() == "+" || p.peek() == "-") {
		op := p.toks[p.i][0]
		p.i++
		var r expr
		if r, err = p.product(); err == nil {
			l = binExpr{op, l, r}
		}
	}
	return l, err
}

func (p *exprParser) product() (expr, error) {
	l, err := p.factor()
	for err == nil && (p.peek() == "*" || p.peek() == "/" || p.peek() == "%") {
		op := p.toks[p.i][0]
		p.i++
		var r expr
		if r, err = p.factor(); err == nil {
			l = binExpr{op, l, r}
		}
	}
	return l, err
}

func (p *exprParser) factor() (expr, error) {
	t := p.peek()
	p.i++
	switch {
	case t == "":
		return nil, errors.New("expression ends early")
	case t == "-":
		f, err := p.factor()
		return binExpr{'-', numExpr(0), f}, err
	case t == "(":
		e, err := p.sum()
		if err == nil && p.peek() != ")" {
			err = errors.New("missing )")
		}
		p.i++
		return e, err
	case t[0] == ':' && len(t) > 1:
		return varExpr(t[1:]), nil
	case t == "random":
		return p.random()
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("unsupported term %q (integers, :variables, random(lo, hi))", t)
	}
	return numExpr(n), nil
}

func (p *exprParser) random() (expr, error) {
	if p.peek() != "(" {
		return nil, errors.New("random needs (lo, hi)")
	}
	p.i++
	lo, err := p.sum()
	if err != nil {
		return nil, err
	}
	if p.peek() != "," {
		return nil, errors.New("random needs two arguments")
	}
	p.i++
	hi, err := p.sum()
	if err != nil {
		return nil, err
	}
	if p.peek() != ")" {
		return nil, errors.New("random: missing )")
	}
	p.i++
	return randomExpr{lo, hi}, nil
}

func tokenize(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case strings.IndexByte("+-*/%(),", c) >= 0:
			toks = append(toks, string(c))
			i++
		default:
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t+-*/%(),", s[j]) < 0 {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}
