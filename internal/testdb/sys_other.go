//go:build !linux

package testdb

import "syscall"

// sysProcAttr has no parent-death signal outside Linux; Main and Stop end
// the server.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// processAlive answers true outside Linux, so stale dirs are never removed
// there.
func processAlive(int) bool { return true }
