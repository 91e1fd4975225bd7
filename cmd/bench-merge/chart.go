package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// fewRows separates the shapes with a handful of rows (4 x N, 1 x N), where
// one row must be spread over many SMs, from those with many rows.
const fewRows = 16

var (
	oursColor  = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	torchColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	copyColor  = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}
)

// chartOp is the op the chart draws.
const chartOp = "softmax"

// series returns GB/s against row length for one side of one dtype's
// softmax rows, for shapes with few (<= fewRows) or many rows. Where
// several shapes share a row length, the largest (most elements) stands for
// it.
func series(m *Merged, dtype string, ours, few bool) plotter.XYs {
	best := map[int]Row{}
	for _, r := range m.Rows {
		s := r.Torch
		if ours {
			s = r.Ours
		}
		if r.Op != chartOp || r.Dtype != dtype || s == nil || (r.Rows <= fewRows) != few {
			continue
		}
		if b, ok := best[r.RowLen]; !ok || numel(r.Shape) > numel(b.Shape) {
			best[r.RowLen] = r
		}
	}
	var xs []int
	for x := range best {
		xs = append(xs, x)
	}
	sort.Ints(xs)
	pts := make(plotter.XYs, len(xs))
	for i, x := range xs {
		r := best[x]
		s := r.Torch
		if ours {
			s = r.Ours
		}
		pts[i].X, pts[i].Y = float64(x), s.GBs
	}
	return pts
}

// dtypePlot draws one dtype's panel: ours and PyTorch, many rows solid and
// few rows dashed, and the copy bandwidth of our process, over row lengths
// minX to maxX. The legend comes back apart, to be drawn beside the panel.
func dtypePlot(m *Merged, dtype string, minX, maxX float64) (*plot.Plot, plot.Legend, error) {
	p := plot.New()
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(28)
	leg.Padding = vg.Points(3)
	leg.XOffs = vg.Points(4)
	p.Title.Text = fmt.Sprintf("%s %s", chartOp, dtype)
	p.X.Label.Text = "row length (elements, log scale)"
	p.Y.Label.Text = "GB/s (read + written)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.ConstantTicks(rowTicks())
	p.Y.Min = 0
	p.Y.Tick.Marker = wholeTicks{}
	p.Add(plotter.NewGrid())

	maxY := 0.0
	for _, sd := range []struct {
		name  string
		ours  bool
		few   bool
		color color.Color
	}{
		{"gosoftmax, many rows", true, false, oursColor},
		{"PyTorch, many rows", false, false, torchColor},
		{"gosoftmax, <= 16 rows", true, true, oursColor},
		{"PyTorch, <= 16 rows", false, true, torchColor},
	} {
		pts := series(m, dtype, sd.ours, sd.few)
		if len(pts) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, leg, err
		}
		l.Color, s.Color = sd.color, sd.color
		l.Width = vg.Points(1.5)
		if sd.few {
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			s.Shape = draw.TriangleGlyph{}
		} else {
			s.Shape = draw.CircleGlyph{}
		}
		p.Add(l, s)
		leg.Add(sd.name, l, s)
		for _, q := range pts {
			maxY = math.Max(maxY, q.Y)
		}
	}
	if copyGBs := m.OursCopyGBs; copyGBs > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: minX, Y: copyGBs}, {X: maxX, Y: copyGBs}})
		if err != nil {
			return nil, leg, err
		}
		l.Color = copyColor
		l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		leg.Add(fmt.Sprintf("copy (ours): %.0f GB/s", copyGBs), l)
		maxY = math.Max(maxY, copyGBs)
	}
	p.X.Min, p.X.Max = minX/1.5, maxX*1.5
	p.Y.Max = maxY * 1.08
	if p.Y.Max == 0 {
		p.Y.Max = 1
	}
	return p, leg, nil
}

// rowRange is the range of row lengths of the charted op, over all dtypes
// and both sides, so that the panels share their x axis.
func rowRange(m *Merged) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range m.Rows {
		if r.Op == chartOp && r.RowLen > 0 {
			lo, hi = math.Min(lo, float64(r.RowLen)), math.Max(hi, float64(r.RowLen))
		}
	}
	if lo > hi { // nothing to draw: keep the log axis valid
		return 128, 1 << 25
	}
	return lo, hi
}

// wholeTicks labels the default ticks as whole numbers.
type wholeTicks struct{}

func (wholeTicks) Ticks(min, max float64) []plot.Tick {
	t := plot.DefaultTicks{}.Ticks(min, max)
	for i := range t {
		if t[i].Label != "" {
			t[i].Label = strconv.FormatFloat(t[i].Value, 'f', -1, 64)
		}
	}
	return t
}

func rowTicks() []plot.Tick {
	var t []plot.Tick
	for e := 6; e <= 26; e++ {
		v := float64(int(1) << e)
		label := ""
		switch {
		case e%3 != 1 && e != 6:
			// unlabelled minor tick
		case e >= 20:
			label = fmt.Sprintf("%dM", 1<<(e-20))
		case e >= 10:
			label = fmt.Sprintf("%dK", 1<<(e-10))
		default:
			label = fmt.Sprintf("%d", 1<<e)
		}
		t = append(t, plot.Tick{Value: v, Label: label})
	}
	return t
}

// writeChart draws one panel per dtype, stacked, each with its legend on
// its right, into one PNG.
func writeChart(path string, m *Merged) error {
	dts := dtypesOf(m)
	if len(dts) == 0 {
		dts = []string{"float32"}
	}
	minX, maxX := rowRange(m)
	col := make([][]*plot.Plot, len(dts))
	legs := make([]plot.Legend, len(dts))
	for i, dt := range dts {
		p, leg, err := dtypePlot(m, dt, minX, maxX)
		if err != nil {
			return fmt.Errorf("chart %s: %w", dt, err)
		}
		col[i], legs[i] = []*plot.Plot{p}, leg
	}
	const panelW, panelH, legendW = 11 * vg.Inch, 4.2 * vg.Inch, 2.8 * vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(panelW, panelH*vg.Length(len(dts))), vgimg.UseDPI(110))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(dts), Cols: 1, PadY: vg.Millimeter * 6, PadTop: vg.Millimeter * 3,
		PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3}
	plots, strip := dc, dc
	plots.Max.X = dc.Max.X - legendW
	strip.Min.X = plots.Max.X
	canvases := plot.Align(col, tiles, plots)
	for i := range dts {
		col[i][0].Draw(canvases[i][0])
		lc := tiles.At(strip, 0, i)
		lc.Min.X += vg.Millimeter * 3
		lc.Max.Y -= vg.Millimeter * 8 // below the title
		legs[i].Draw(lc)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
