// Package lossplot writes the loss curve of an example's training run as a
// PNG image.
package lossplot

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Write plots losses[i] against epoch i+1 and saves the plot to path, a
// .png file.
func Write(path, title string, losses []float64) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "epoch"
	p.Y.Label.Text = "mean training loss"
	pts := make(plotter.XYs, len(losses))
	for i, l := range losses {
		pts[i].X, pts[i].Y = float64(i+1), l
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	p.Add(line, points, plotter.NewGrid())
	p.Y.Min = 0
	if err := p.Save(6*vg.Inch, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}
