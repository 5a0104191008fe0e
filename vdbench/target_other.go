//go:build !linux

package vdbench

import (
	"fmt"
	"runtime"
)

// OpenTarget is implemented for Linux only: O_DIRECT, the block-size and
// capacity ioctls and the in-use checks of block devices are Linux's.
// Elsewhere it returns an error naming the operating system.
func OpenTarget(sd SD, o TargetOptions) (*Target, error) {
	return nil, fmt.Errorf("sd=%s: lun %s: block targets are supported on Linux only (this is %s)", sd.Name, sd.Lun, runtime.GOOS)
}
