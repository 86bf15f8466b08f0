package yamledit

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"gopkg.in/yaml.v3"
)

// corpus is every YAML file of the command's goldens
// (testdata/script/*/*.txtar) that NewSource accepts: compose files as users
// write them, with anchors, flow lists, comments, CRLF and byte order marks.
func corpus(t *testing.T) map[string]*Source {
	t.Helper()
	files, err := filepath.Glob("../testdata/script/*/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens found: %v", err)
	}
	out := map[string]*Source{}
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, af := range ar.Files {
			if ext := filepath.Ext(af.Name); ext != ".yml" && ext != ".yaml" {
				continue
			}
			name := filepath.Base(f) + ":" + af.Name
			if src, err := NewSource(name, af.Data); err == nil {
				out[name] = src
			}
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d YAML files in the goldens", len(out))
	}
	return out
}

// onlyInserted reports whether out is in with one run of bytes inserted.
func onlyInserted(in, out []byte) bool {
	p := 0
	for p < len(in) && p < len(out) && in[p] == out[p] {
		p++
	}
	return len(out) > len(in) && bytes.HasSuffix(out, in[p:])
}

// TestRoundTripVerbatim is hclwrite's TestRoundTripVerbatim for YAML: a
// file with no edits comes back byte for byte, and so does a file whose
// every string scalar is replaced by its own value (the edit finds the
// scalar's exact bytes and writes it back in its own style), for every
// scalar the editor accepts.
func TestRoundTripVerbatim(t *testing.T) {
	replaced := 0
	for name, src := range corpus(t) {
		out, err := NewEditor(src).Bytes()
		if err != nil || !bytes.Equal(out, src.Data) {
			t.Errorf("%s: no edits changed the bytes (%v)", name, err)
			continue
		}
		walkScalars(src.Root, false, func(n *yaml.Node, inFlow bool) {
			if n.Tag != "!!str" {
				return // 8080 written back as a string would be quoted
			}
			sp, err := src.ScalarSpan(n, inFlow)
			if err != nil {
				return
			}
			if n.Style&yaml.DoubleQuotedStyle != 0 && bytes.IndexByte(src.Data[sp.Start:sp.End], '\\') >= 0 {
				return // "\t" and a tab are one value in two spellings
			}
			e := NewEditor(src)
			if err := e.ReplaceScalar(n, n.Value, inFlow); err != nil {
				t.Errorf("%s:%d:%d: span found, replace refused: %v", name, n.Line, n.Column, err)
				return
			}
			replaced++
			if got, err := e.Bytes(); err != nil || !bytes.Equal(got, src.Data) {
				t.Errorf("%s:%d:%d: %q written back as %q (%v)", name, n.Line, n.Column, src.Data[sp.Start:sp.End], diffAt(src.Data, got), err)
			}
		})
	}
	t.Logf("%d scalars written back", replaced)
	if replaced < 1000 {
		t.Errorf("only %d scalars written back", replaced)
	}
}

// diffAt is the changed line of got, for messages.
func diffAt(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range gl {
		if i >= len(wl) || wl[i] != gl[i] {
			return gl[i]
		}
	}
	return ""
}

func walkScalars(n *yaml.Node, inFlow bool, f func(*yaml.Node, bool)) {
	inFlow = inFlow || n.Style&yaml.FlowStyle != 0
	switch n.Kind {
	case yaml.ScalarNode:
		f(n, inFlow)
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			walkScalars(n.Content[i], inFlow, f)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			walkScalars(c, inFlow, f)
		}
	}
}

// TestInsertionsKeepTheRest: adding a key with a list to every service and
// an item to every list a service has is one insertion each, nothing else
// moves, and the file reads back with exactly the addition.
func TestInsertionsKeepTheRest(t *testing.T) {
	added := 0
	for name, src := range corpus(t) {
		_, svcs := OwnKey(src.Root, "services")
		if svcs == nil || svcs.Kind != yaml.MappingNode || svcs.Style&yaml.FlowStyle != 0 {
			continue
		}
		for i := 0; i+1 < len(svcs.Content); i += 2 {
			svc := svcs.Content[i+1]
			if svc.Kind != yaml.MappingNode || svc.Style&yaml.FlowStyle != 0 || len(svc.Content) == 0 {
				continue
			}
			where := name + ": " + svcs.Content[i].Value
			e := NewEditor(src)
			if err := e.AddKeyWithItems(svc, "x-added", []string{"a:/b"}); err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			checkInsertion(t, where, src, e, []string{"services", svcs.Content[i].Value, "x-added"}, 1, "a:/b")
			added++
			for j := 0; j+1 < len(svc.Content); j += 2 {
				seq := svc.Content[j+1]
				if seq.Kind != yaml.SequenceNode || len(seq.Content) == 0 || svc.Content[j].Value == "<<" {
					continue
				}
				e := NewEditor(src)
				if err := e.AppendItem(seq, "added"); err != nil {
					continue // a flow list whose end is not found: reported to the caller
				}
				checkInsertion(t, where+"."+svc.Content[j].Value, src, e, []string{"services", svcs.Content[i].Value, svc.Content[j].Value}, len(seq.Content)+1, "added")
				added++
			}
		}
	}
	t.Logf("%d insertions checked", added)
	if added < 300 {
		t.Errorf("only %d insertions checked", added)
	}
}

// checkInsertion checks that e's output is src with one insertion, and
// that the list at keys has n items, the last one last.
func checkInsertion(t *testing.T, where string, src *Source, e *Editor, keys []string, n int, last string) {
	t.Helper()
	out, err := e.Bytes()
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	if !onlyInserted(src.Data, out) {
		t.Errorf("%s: more than an insertion:\n%s", where, out)
		return
	}
	got, err := NewSource(src.Path, out)
	if err != nil {
		t.Errorf("%s: output does not parse: %v\n%s", where, err, out)
		return
	}
	node := got.Root
	for _, k := range keys {
		_, node = OwnKey(node, k)
	}
	if node == nil || node.Kind != yaml.SequenceNode || len(node.Content) != n || node.Content[n-1].Value != last {
		t.Errorf("%s: the list does not end with %q:\n%s", where, last, out)
	}
}
