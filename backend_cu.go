//go:build cu

package softmax

// With -tags cu the CUDA backend registers itself: host tensors above its
// size threshold run on GPU 0 (SOFTMAX_BACKEND=cpu|gpu forces a side).
// gorgonia.org/cu exits the process at start when no GPU is visible.
import _ "github.com/gosoftmax/softmax/cuda"
