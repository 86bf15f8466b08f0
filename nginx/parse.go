package nginx

import "sort"

// Directive is one directive: its name, its arguments, and for a block
// directive ("upstream NAME { ... }") the directives inside. End is the
// offset just past the terminating ';' or '}'.
type Directive struct {
	Name    Token
	Args    []Token
	Block   []*Directive // nil for a simple directive
	IsBlock bool
	End     int
}

// Config is a parsed configuration file: the top-level directives and the
// bytes they index into.
type Config struct {
	Data       []byte
	Directives []*Directive

	lines []int // offsets where lines start, for Position; built on first use
}

// Position is the 1-based line and column of byte offset off of c.Data,
// by binary search over the line starts (Position(data, off) scans from
// the start: a target per server block of a 20,000-server file made that
// quadratic, 23 s; issue 25).
func (c *Config) Position(off int) (line, col int) {
	if c.lines == nil {
		c.lines = []int{0}
		for i, b := range c.Data {
			if b == '\n' {
				c.lines = append(c.lines, i+1)
			}
		}
	}
	off = min(max(off, 0), len(c.Data))
	// The last line start at or before off (a '\n' at off belongs to the
	// line it ends).
	l := sort.Search(len(c.lines), func(i int) bool { return c.lines[i] > off }) - 1
	return l + 1, off - c.lines[l] + 1
}

// Parse tokenizes and parses one configuration file. A file may be a
// fragment (a conf.d file holds http-context directives, or only the
// inside of a server block): no context is checked. Errors are
// *SyntaxError with the position nginx would report.
func Parse(data []byte) (*Config, error) {
	toks, err := Tokenize(data)
	if err != nil {
		return nil, err
	}
	var words []Token
	directives := 0
	for _, t := range toks {
		if t.Kind == Comment {
			continue
		}
		// Every directive ends with ';' or '{': count them before parsing.
		if t.Kind == Semicolon || t.Kind == Open {
			if directives++; directives > MaxDirectives {
				return nil, errAt(data, t.Start, "more than %d directives: not an nginx configuration a proxy migration reads", MaxDirectives)
			}
		}
		words = append(words, t)
	}
	p := &parser{data: data, toks: words}
	dirs, err := p.block(false)
	if err != nil {
		return nil, err
	}
	return &Config{Data: data, Directives: dirs}, nil
}

type parser struct {
	data  []byte
	toks  []Token
	i     int
	depth int // blocks open at p.i
}

// Limits on what Parse accepts (README, "Security and limits"): real
// configurations nest a few levels (http, server, location, if) and hold
// at most a few hundred blocks; 50,000 nested locations (736 KB) exhausted
// memory, the parents of each block being copied for the walk (issue 25).
const (
	// MaxDepth is the deepest nesting of blocks accepted.
	MaxDepth = 32
	// MaxDirectives is the most directives (simple and block, at every
	// level) a file may hold.
	MaxDirectives = 100_000
)

// block parses directives until the end of input (top level) or the '}'
// closing the enclosing block (inner).
func (p *parser) block(inner bool) ([]*Directive, error) {
	dirs := []*Directive{}
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		switch t.Kind {
		case Close:
			if !inner {
				return nil, errAt(p.data, t.Start, "unexpected \"}\"")
			}
			p.i++
			return dirs, nil
		case Semicolon, Open:
			return nil, errAt(p.data, t.Start, "unexpected %q", t.Value)
		}
		d, err := p.directive()
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, d)
	}
	if inner {
		return nil, errAt(p.data, len(p.data), "unexpected end of file, expecting \"}\"")
	}
	return dirs, nil
}

// directive parses a name, its arguments and the ';' or block after them.
func (p *parser) directive() (*Directive, error) {
	d := &Directive{Name: p.toks[p.i]}
	p.i++
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		p.i++
		switch t.Kind {
		case Word:
			d.Args = append(d.Args, t)
		case Semicolon:
			d.End = t.End
			return d, nil
		case Open:
			d.IsBlock = true
			if p.depth++; p.depth > MaxDepth {
				return nil, errAt(p.data, t.Start, "blocks nested more than %d deep: no nginx configuration needs this many", MaxDepth)
			}
			inner, err := p.block(true)
			p.depth--
			if err != nil {
				return nil, err
			}
			d.Block = inner
			d.End = p.toks[p.i-1].End
			return d, nil
		case Close:
			return nil, errAt(p.data, t.Start, "unexpected \"}\"")
		}
	}
	return nil, errAt(p.data, len(p.data), "unexpected end of file, expecting \";\" or \"}\"")
}

// Walk calls fn for every directive in depth-first order with the chain
// of enclosing block directives (outermost first).
func (c *Config) Walk(fn func(d *Directive, parents []*Directive)) {
	var walk func(ds []*Directive, parents []*Directive)
	walk = func(ds []*Directive, parents []*Directive) {
		for _, d := range ds {
			fn(d, parents)
			if d.Block != nil {
				walk(d.Block, append(parents[:len(parents):len(parents)], d))
			}
		}
	}
	walk(c.Directives, nil)
}
