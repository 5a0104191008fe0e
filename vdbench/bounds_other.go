//go:build !linux

package vdbench

const (
	rlimitNPROC  = 0
	rlimitNOFILE = 1
)

// rlimit is read on Linux only: elsewhere block targets are not supported
// (see OpenTarget), and ReadHostLimits keeps its defaults.
func rlimit(which int) (int64, bool) { return 0, false }
