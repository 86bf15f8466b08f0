package bench

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func plotReport(t *testing.T, latencies bool) *Report {
	t.Helper()
	var rounds []Round
	for i := range 8 {
		var lt, ls []time.Duration
		if latencies {
			for j := range 200 {
				lt = append(lt, time.Duration(100+j%50+i)*time.Microsecond)
				ls = append(ls, time.Duration(80+j%40+i)*time.Microsecond)
			}
		}
		rounds = append(rounds, Round{TCP: sample(TCP, 1000, 1, lt...), Socket: sample(Socket, int64(1150+10*(i%3)), 1, ls...)})
	}
	r, err := analyzeClients([]Client{&fakeClient{name: "pgx"}}, [][]Round{rounds}, quiet, 3)
	if err != nil {
		t.Fatal(err)
	}
	r.Workload = "lookup-small"
	return r
}

// Both formats render: the SVG is well-formed XML with an <svg> root, the
// PNG decodes to the plot's size.
func TestWritePlotSVGAndPNG(t *testing.T) {
	dir := t.TempDir()
	for _, lat := range []bool{true, false} {
		r := plotReport(t, lat)
		svg := filepath.Join(dir, "p.svg")
		if err := r.WritePlot(svg); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(svg)
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(bytes.NewReader(b))
		var root string
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("SVG is not well-formed XML: %v", err)
			}
			if se, ok := tok.(xml.StartElement); ok && root == "" {
				root = se.Name.Local
			}
		}
		if root != "svg" || !bytes.Contains(b, []byte("socket/TCP queries/s per round")) {
			t.Errorf("SVG root %q, %d bytes", root, len(b))
		}

		pngPath := filepath.Join(dir, "p.png")
		if err := r.WritePlot(pngPath); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(pngPath)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("PNG does not decode: %v", err)
		}
		if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 500 {
			t.Errorf("PNG %v, want the 20×22 cm plot", b)
		}
	}
	if err := plotReport(t, true).WritePlot(filepath.Join(dir, "p.pdf")); err == nil {
		t.Error(".pdf accepted")
	}
}
