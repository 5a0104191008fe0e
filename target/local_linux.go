package target

import "syscall"

// dieWithParent has the program killed (SIGKILL) when the thread that
// started it ends (Linux's Pdeathsig): Local.Start starts it from a
// thread locked for as long as the program runs, so that is when this
// process ends.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
