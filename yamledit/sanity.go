package yamledit

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/uds-migrate/uds-migrate/finding"
	"gopkg.in/yaml.v3"
)

// Limits on what NewSource accepts. Each turns input that would otherwise
// exhaust time or memory further down (in compose-go, mostly) into a
// file:line:col message before any of it is parsed or loaded.
const (
	// MaxFileSize is the largest compose file accepted, in bytes (10 MiB).
	// Compose itself refuses documents of more than maxNodes YAML nodes,
	// which real files reach far below this size; the limit keeps a stray
	// 50 MB dump from being parsed at all.
	MaxFileSize = 10 << 20
	// maxDepth is the deepest nesting of mappings and sequences accepted.
	// compose-go re-splits the path of every node at every level while
	// transforming, so its load time grows with the square of the depth:
	// 200 levels load in 0.1 s, 5,000 levels take a minute.
	maxDepth = 100
	// maxNodes mirrors compose-go's default node visit limit (loader
	// defaultMaxNodeVisits): a document with more nodes fails to load there
	// with no position.
	maxNodes = 100_000
)

// checkBytes rejects content that is not UTF-8 YAML text, with the position
// of the first offending byte: UTF-16 and UTF-32 (which yaml.v3 would
// transcode, so byte offsets would no longer match the file), binary data,
// invalid UTF-8 and the control characters YAML forbids. It also refuses the
// line breaks yaml.v3 knows besides LF and CRLF (a lone CR, NEL, U+2028,
// U+2029): positions here count lines by LF, so an edit would land on the
// wrong line (found by FuzzMigrate).
func checkBytes(path string, data []byte) error {
	if len(data) > MaxFileSize {
		return TooLarge(path)
	}
	for _, b := range []struct{ bom, name string }{
		{"\x00\x00\xfe\xff", "UTF-32"},
		{"\xff\xfe\x00\x00", "UTF-32"},
		{"\xfe\xff", "UTF-16"},
		{"\xff\xfe", "UTF-16"},
	} {
		if bytes.HasPrefix(data, []byte(b.bom)) {
			return &finding.PosError{Pos: finding.Pos{File: path, Line: 1, Col: 1}, Msg: fmt.Sprintf("the file is %s text (byte order mark); uds-migrate edits UTF-8 compose files only: convert it with iconv -f %[1]s -t UTF-8", b.name)}
		}
	}
	for off := 0; off < len(data); {
		r, w := utf8.DecodeRune(data[off:])
		switch {
		case r == utf8.RuneError && w == 1:
			return bytePosError(path, data, off, fmt.Sprintf("invalid UTF-8 (byte 0x%02X): compose files are UTF-8 text", data[off]))
		case r == 0:
			return bytePosError(path, data, off, "NUL byte: this is a binary file or UTF-16 text without a byte order mark, not a UTF-8 compose file")
		case !yamlPrintable(r): // a byte order mark (U+FEFF) is printable
			return bytePosError(path, data, off, fmt.Sprintf("control character U+%04X: YAML does not allow it (binary data?)", r))
		case r == '\r' && (off+1 == len(data) || data[off+1] != '\n'):
			return bytePosError(path, data, off, "carriage return without a line feed: YAML reads it as a line break, uds-migrate handles LF and CRLF line endings only (convert the file, e.g. with tr '\\r' '\\n')")
		case r == 0x85 || r == 0x2028 || r == 0x2029:
			return bytePosError(path, data, off, fmt.Sprintf("U+%04X is a line break to YAML 1.1 (and so to compose), but not to uds-migrate, which counts lines by LF: replace it", r))
		}
		off += w
	}
	return nil
}

func TooLarge(path string) error {
	return &finding.PosError{Pos: finding.Pos{File: path}, Msg: fmt.Sprintf("larger than %d MiB, more than a compose file may have: is this the right file?", MaxFileSize>>20)}
}

// yamlPrintable is the character set YAML 1.2 §5.1 allows in a stream,
// exactly as yaml.v3's reader checks it (so no file it accepts is refused).
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7E, r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD:
		return true
	}
	return r >= 0x10000 && r <= utf8.MaxRune
}

// bytePosError is a PosError at byte offset off of data: line counted in
// '\n', column in characters from the line start (a leading byte order mark
// is not a column), as yaml.v3 counts them.
func bytePosError(path string, data []byte, off int, msg string) error {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	line := bytes.Count(data[:start], []byte("\n")) + 1
	if start == 0 && bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) && off >= 3 {
		start = 3
	}
	return &finding.PosError{Pos: finding.Pos{File: path, Line: line, Col: utf8.RuneCount(data[start:off]) + 1}, Msg: msg}
}

// checkTree walks the parsed document once and rejects what compose would
// refuse without saying where (duplicate keys, too many nodes, an alias
// bomb) and what would make compose-go crawl (deep nesting). Aliases are
// not followed: their expansion is counted, not built.
func checkTree(path string, root *yaml.Node) error {
	// compose-go counts from the root mapping, not the document node.
	c := &treeCheck{path: path, values: -1, size: map[*yaml.Node]int64{}}
	if err := c.walk(root, 1, false); err != nil {
		return err
	}
	return c.aliasBomb(root)
}

type treeCheck struct {
	path   string
	nodes  int                  // every node written, keys included (yaml.v3's count)
	values int                  // nodes other than mapping keys (compose-go's count)
	size   map[*yaml.Node]int64 // expanded node count of anchored nodes, memoized
}

func (c *treeCheck) at(n *yaml.Node, msg string) error {
	return &finding.PosError{Pos: finding.Pos{File: c.path, Line: n.Line, Col: n.Column}, Msg: msg}
}

func (c *treeCheck) walk(n *yaml.Node, depth int, isKey bool) error {
	c.nodes++
	if !isKey {
		c.values++
	}
	if c.values > maxNodes {
		return c.at(n, fmt.Sprintf("more than %d YAML nodes: compose refuses a file this large", maxNodes))
	}
	if depth > maxDepth && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) {
		return c.at(n, fmt.Sprintf("nested more than %d levels deep: no compose file needs this, and compose-go slows down with the square of the depth", maxDepth))
	}
	if n.Kind == yaml.MappingNode {
		if err := c.duplicateKeys(n); err != nil {
			return err
		}
	}
	for i, ch := range n.Content {
		if err := c.walk(ch, depth+1, n.Kind == yaml.MappingNode && i%2 == 0); err != nil {
			return err
		}
	}
	return nil
}

// duplicateKeys reports the second of two equal scalar keys in mapping m,
// as yaml.v3 and compose-go's YAML reader do (they compare the key text,
// so `a` and "a" are the same key).
func (c *treeCheck) duplicateKeys(m *yaml.Node) error {
	if len(m.Content) < 4 {
		return nil
	}
	first := make(map[string]*yaml.Node, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if prev, ok := first[k.Value]; ok {
			return c.at(k, fmt.Sprintf("duplicate key %q (first at line %d): compose refuses a mapping with the same key twice", k.Value, prev.Line))
		}
		first[k.Value] = k
	}
	return nil
}

// aliasBomb applies yaml.v3's excessive-aliasing rule (decode.go
// allowedAliasRatio) to the fully expanded document: when the nodes reached
// through aliases make up too large a share of all nodes decoded, compose
// (whose YAML reader has the same rule) fails with "document contains
// excessive aliasing" and no position. The rule is applied to the final
// counts only, so it never refuses a document the reader accepts; the error
// names the alias with the largest expansion.
func (c *treeCheck) aliasBomb(root *yaml.Node) error {
	total := c.expand(root, 0)
	aliased := total - int64(c.nodes)
	if aliased <= 100 || total <= 1000 || float64(aliased)/float64(total) <= allowedAliasRatio(total) {
		return nil
	}
	var worst *yaml.Node
	var visit func(n *yaml.Node)
	seen := map[*yaml.Node]bool{}
	visit = func(n *yaml.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			if worst == nil || c.size[n.Alias] > c.size[worst.Alias] {
				worst = n
			}
			return
		}
		for _, ch := range n.Content {
			visit(ch)
		}
	}
	visit(root)
	if worst == nil {
		return nil
	}
	return c.at(worst, fmt.Sprintf("alias *%s expands to %d nodes, the document to %d: excessive aliasing (an alias bomb?); compose refuses it", worst.Value, c.size[worst.Alias], total))
}

// expandCap bounds expansion counts so a bomb of 10^100 nodes does not
// overflow int64; any count this large is far past every limit.
const expandCap = 1 << 50

// expand is the number of nodes decoding n produces, aliases expanded.
// yaml.v3 refuses an alias to an enclosing node, so the recursion ends; the
// depth guard keeps a malformed tree from recursing forever all the same.
func (c *treeCheck) expand(n *yaml.Node, depth int) int64 {
	if depth > 10*maxDepth {
		return expandCap
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return 1
		}
		return min(1+c.expandAnchored(n.Alias, depth+1), expandCap)
	}
	var sum int64 = 1
	for _, ch := range n.Content {
		sum = min(sum+c.expand(ch, depth+1), expandCap)
	}
	return sum
}

func (c *treeCheck) expandAnchored(n *yaml.Node, depth int) int64 {
	if s, ok := c.size[n]; ok {
		return s
	}
	s := c.expand(n, depth)
	c.size[n] = s
	return s
}

// allowedAliasRatio is yaml.v3's (decode.go): the share of decoded nodes
// that may come from aliases, falling from 99% at 400,000 nodes to 10% at
// 4,000,000.
func allowedAliasRatio(decodeCount int64) float64 {
	const low, high = 400_000, 4_000_000
	switch {
	case decodeCount <= low:
		return 0.99
	case decodeCount >= high:
		return 0.10
	}
	return 0.99 - 0.89*(float64(decodeCount-low)/float64(high-low))
}
