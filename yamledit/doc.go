// Package yamledit is byte-preserving surgery on one YAML document, the
// hclwrite of uds-migrate: a Source is a file's bytes with its yaml.v3 node
// tree (for positions only; it is never re-encoded), checked on the way in
// (UTF-8 text, one document, limits on size, depth, nodes and aliases, all
// refused with file:line:col), and an Editor turns operations on nodes
// (replace a scalar in its own quoting style, replace a list item, insert
// lines, append an item, add a key with a list, delete lines) into
// textedit.Edits on the original bytes. It knows YAML, not compose: what a
// compose key means is package rewrite's (later compose's) business.
package yamledit
