//go:build unix && !linux

package target

import "syscall"

// dieWithParent does nothing here: only Linux kills a child when its
// parent ends (Pdeathsig).
func dieWithParent(*syscall.SysProcAttr) {}
