package main

import (
	"math"
	"math/rand/v2"
)

// point is one example: a position in the plane and its class.
type point struct {
	x, y  float64
	class int
}

// spirals draws n points from each of classes interleaved spiral arms (the
// classic toy problem no straight line separates). Each arm winds one and a half times
// around the origin; noise jitters the angle, so arms touch near the centre
// where the points are close together.
func spirals(rng *rand.Rand, classes, n int, noise float64) []point {
	out := make([]point, 0, classes*n)
	for c := 0; c < classes; c++ {
		for i := 0; i < n; i++ {
			r := rng.Float64()                                                           // radius in [0, 1)
			t := 2*math.Pi*(float64(c)/float64(classes)+1.5*r) + noise*rng.NormFloat64() // angle
			out = append(out, point{x: r * math.Sin(t), y: r * math.Cos(t), class: c})
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
