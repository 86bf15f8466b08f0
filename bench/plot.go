package bench

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// maxCurvePoints bounds each latency curve: 500 points draw a smooth
// distribution and keep an SVG small whatever the query count.
const maxCurvePoints = 500

// WritePlot draws r into path, SVG or PNG by its extension (.svg, .png):
// on top, every client's per-round socket/TCP ratios with the 95%
// interval as a band and 1 (no difference) as a line; below, the latency
// distribution (cumulative share of queries by round trip, log scale) of
// each transport for the clients that time every query (pgx, jdbc).
func (r *Report) WritePlot(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("--plot %s: want a .svg or .png file", path)
	}
	top, err := r.ratioPlot()
	if err != nil {
		return err
	}
	bottom, err := r.latencyPlot()
	if err != nil {
		return err
	}
	w, h := 20*vg.Centimeter, 22*vg.Centimeter
	var canvas vg.CanvasWriterTo
	if ext == ".svg" {
		canvas = vgsvg.New(w, h)
	} else {
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	}
	plots := [][]*plot.Plot{{top}, {bottom}}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Centimeter / 2, PadBottom: vg.Centimeter / 2, PadX: vg.Centimeter / 2, PadY: vg.Centimeter}
	cs := plot.Align(plots, tiles, draw.New(canvas))
	top.Draw(cs[0][0])
	bottom.Draw(cs[1][0])
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := canvas.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (r *Report) ratioPlot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: socket/TCP queries/s per round (band: 95%% CI of the median)\n%s", r.Workload, r.Machine)
	p.X.Label.Text = "round"
	p.Y.Label.Text = "socket ÷ TCP"
	n := float64(r.Rounds)
	one, err := plotter.NewLine(plotter.XYs{{X: 0.5, Y: 1}, {X: n + 0.5, Y: 1}})
	if err != nil {
		return nil, err
	}
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(one)
	for i, c := range r.Clients {
		col := plotutil.Color(i)
		band, err := plotter.NewPolygon(plotter.XYs{{X: 0.5, Y: c.Ratio.Low}, {X: n + 0.5, Y: c.Ratio.Low}, {X: n + 0.5, Y: c.Ratio.High}, {X: 0.5, Y: c.Ratio.High}})
		if err != nil {
			return nil, err
		}
		band.Color = translucent(col)
		band.LineStyle.Width = 0
		pts := make(plotter.XYs, len(c.RoundRatios))
		for j, v := range c.RoundRatios {
			pts[j] = plotter.XY{X: float64(j + 1), Y: v}
		}
		line, scatter, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, scatter.Color = col, col
		p.Add(band, line, scatter)
		p.Legend.Add(fmt.Sprintf("%s: median %.3f (%.3f–%.3f), %s", c.Client, c.Ratio.Estimate, c.Ratio.Low, c.Ratio.High, c.Verdict), line, band)
	}
	p.Legend.Top = true
	return p, nil
}

func (r *Report) latencyPlot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "latency distribution per query (clients that time every query)"
	p.X.Label.Text = "round trip, µs (log scale)"
	p.Y.Label.Text = "share of queries at or below"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	drawn := 0
	for i, c := range r.Clients {
		for k, st := range c.Transports {
			if len(st.Latencies) == 0 {
				continue
			}
			line, err := plotter.NewLine(ecdf(st.Latencies))
			if err != nil {
				return nil, err
			}
			line.Color = plotutil.Color(i)
			if k == 0 {
				line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			p.Add(line)
			p.Legend.Add(fmt.Sprintf("%s %s (p50 %.0f µs)", c.Client, st.Transport, st.Latency.P50), line)
			drawn++
		}
	}
	if drawn == 0 {
		// A log axis needs a positive range even with nothing on it.
		p.X.Min, p.X.Max = 1, 10
		p.Title.Text = "no per-query latencies (pgbench reports a mean only)"
	}
	p.Legend.Left, p.Legend.Top = true, true
	return p, nil
}

// ecdf returns the empirical cumulative distribution of us at up to
// maxCurvePoints evenly spaced ranks.
func ecdf(us []float64) plotter.XYs {
	s := slices.Clone(us)
	slices.Sort(s)
	step := max(1, len(s)/maxCurvePoints)
	var xy plotter.XYs
	for i := 0; i < len(s); i += step {
		xy = append(xy, plotter.XY{X: max(s[i], 0.1), Y: float64(i+1) / float64(len(s))})
	}
	if last := len(s) - 1; (last % step) != 0 {
		xy = append(xy, plotter.XY{X: max(s[last], 0.1), Y: 1})
	}
	return xy
}

func translucent(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 60}
}
