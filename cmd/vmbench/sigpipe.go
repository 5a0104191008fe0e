package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptContext returns a context that ends when the run is to stop
// as Ctrl-C stops it: SIGINT, SIGTERM, SIGHUP (a closed terminal or SSH
// session), or SIGPIPE when it is this process's own output that broke
// (the reader of `vmbench ... | head` went away). Once SIGPIPE is
// watched, Go delivers it for every broken pipe or socket of the process,
// also for a connection that a server inside it (the in-process vcsim)
// or a guest's agent closed, which must not end a run: so a SIGPIPE ends
// it only when standard output or standard error is broken (outputBroken).
func interruptContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case s := <-ch:
				if s != syscall.SIGPIPE || outputBroken(1) || outputBroken(2) {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
