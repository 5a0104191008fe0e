//go:build !unix

package tpcc

import "time"

// processCPU is not measured outside Unix: the CPU metrics read 0 there.
func processCPU() (user, sys time.Duration) { return 0, 0 }

// processGone answers false outside Unix, so the SQLite load directories
// of other test processes are never removed there.
func processGone(int) bool { return false }
