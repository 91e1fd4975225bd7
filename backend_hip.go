//go:build hip

package softmax

// With -tags hip the HIP backend registers itself: host tensors above its
// size threshold run on AMD GPU 0 (SOFTMAX_BACKEND=cpu|gpu forces a side).
// Without a usable GPU (hipInit fails, or no code object for the device's
// architecture) everything runs on the CPU and Backend() says why. The
// binary needs the HIP runtime library (libamdhip64) to start.
import _ "github.com/gosoftmax/softmax/hip"
