package configfile

import "fmt"

// MaxDepth is the deepest nesting of objects, arrays and mappings the
// JSON, Hjson and YAML readers follow (README, "Security and limits"): a
// configuration nests a handful of levels, and each level lengthens every
// dotted key below it (an Hjson file nested 50,000 deep took 2.5 GB;
// issue 25).
const MaxDepth = 64

// LimitError is a file beyond one of this package's limits, at the line
// and column where it was passed.
type LimitError struct {
	Line, Col int
	Msg       string
}

func (e *LimitError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

func tooDeep(line, col int) error {
	return &LimitError{Line: line, Col: col, Msg: fmt.Sprintf("nested more than %d levels deep", MaxDepth)}
}

// lineCounter gives the line and column of increasing offsets of one text
// in time linear in the text (counting from the start for each value made
// a file of many values quadratic).
type lineCounter struct {
	s          string
	off, lines int // newlines in s[:off]
}

func (c *lineCounter) at(off int) (line, col int) {
	if off < c.off {
		c.off, c.lines = 0, 0
	}
	for i := c.off; i < off; i++ {
		if c.s[i] == '\n' {
			c.lines++
		}
	}
	c.off = off
	start := 0
	for i := off - 1; i >= 0; i-- {
		if c.s[i] == '\n' {
			start = i + 1
			break
		}
	}
	return c.lines + 1, off - start + 1
}
