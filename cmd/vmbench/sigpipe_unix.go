//go:build unix

package main

import "golang.org/x/sys/unix"

// outputBroken says whether writing to fd would fail with EPIPE: a pipe
// or socket whose reader has gone (poll reports POLLERR or POLLHUP on its
// write end). A file or terminal is never broken.
func outputBroken(fd int) bool {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	n, err := unix.Poll(p, 0)
	return err == nil && n > 0 && p[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
}
