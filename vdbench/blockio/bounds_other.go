//go:build !linux

package blockio

const (
	rlimitNPROC  = 0
	rlimitNOFILE = 1
)

// rlimit is read on Linux only: elsewhere (Windows, which has no
// RLIMIT_NPROC or RLIMIT_NOFILE, and the other systems, which refuse
// every target) ReadHostLimits keeps its defaults.
func rlimit(which int) (int64, bool) { return 0, false }
