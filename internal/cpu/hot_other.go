//go:build !amd64 || purego

package cpu

// No assembly here; variables so tests can treat every build alike.
var hasAVX2, hasAVX512 = false, false

func max32(x []float32) float32                       { return maxGo(x) }
func expStore32(x, y []float32, m, s float64) float64 { return expStoreGo(x, y, m, s) }

func scale32(y []float32, f float32) {
	for k := range y {
		y[k] *= f
	}
}

func logApply32(x, y []float32, m, s, lse float64)    { logApplyGo(x, y, m, s, lse) }
func dot32(a, b []float32) float64                    { return dotGo(a, b) }
func sum32(a []float32) float64                       { return sumGo(a) }
func softmaxGrad32(y, dy, dx []float32, c, s float64) { softmaxGradGo(y, dy, dx, c, s) }
func logGrad32(y, dy, dx []float32, c, s float64)     { logGradGo(y, dy, dx, c, s) }

func max64(x []float64) float64                                    { return maxGo(x) }
func expStore64(x, y []float64, m, s float64) (rest, ones float64) { return expStore64Go(x, y, m, s) }

func dot64(a, b []float64) float64                    { return dotGo(a, b) }
func sum64(a []float64) float64                       { return sumGo(a) }
func softmaxGrad64(y, dy, dx []float64, c, s float64) { softmaxGradGo(y, dy, dx, c, s) }
func logGrad64(y, dy, dx []float64, c, s float64)     { logGradGo(y, dy, dx, c, s) }
