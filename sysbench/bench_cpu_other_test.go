//go:build !unix

package sysbench

import "time"

// processCPU is not measured outside Unix: the CPU metrics read 0 there.
func processCPU() (user, sys time.Duration) { return 0, 0 }
