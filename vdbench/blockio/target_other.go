//go:build !linux && !windows

package blockio

import (
	"context"
	"fmt"
	"runtime"

	"vmbench/vdbench/parmfile"
)

// OpenTarget is implemented for Linux (target_linux.go) and Windows
// (target_windows.go) only: O_DIRECT, the block-size and capacity ioctls
// and the in-use checks of block devices are Linux's. On other systems
// (macOS, the BSDs) it returns an error naming the operating system.
func OpenTarget(sd parmfile.SD, o TargetOptions) (*Target, error) {
	return nil, fmt.Errorf("sd=%s: lun %s: block targets are supported on Linux and Windows only (this is %s)", sd.Name, sd.Lun, runtime.GOOS)
}

// CheckSpace is implemented for Linux only (statfs); elsewhere OpenTarget
// refuses every target, so there is nothing to check.
func CheckSpace(runs []parmfile.Run) error { return nil }

// CreateFiles is implemented for Linux only; elsewhere it creates nothing
// and OpenTarget refuses every target.
func CreateFiles(ctx context.Context, runs []parmfile.Run, o TargetOptions) ([]string, error) {
	return nil, nil
}

// RemoveCreated removes the files CreateFiles created.
func RemoveCreated(files []string) {}
