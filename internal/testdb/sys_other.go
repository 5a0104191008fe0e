//go:build !linux

package testdb

import "syscall"

// sysProcAttr has no parent-death signal outside Linux; Main and Stop end
// the server.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// processAlive answers true outside Linux, so stale dirs are never removed
// there.
func processAlive(int) bool { return true }

// serverProcAttr is sysProcAttr: outside Linux the tests do not switch
// accounts for PostgreSQL (run them as a user other than root).
func serverProcAttr() *syscall.SysProcAttr { return sysProcAttr() }

// giveToServerUser does nothing outside Linux.
func giveToServerUser(string) error { return nil }
