package main

import (
	"context"
	"fmt"
)

// untilInterrupted returns what read returns (its errors as they are:
// read marks bad input), or ctx's error (exit 130) as soon as ctx ends
// (Ctrl-C, SIGTERM, SIGHUP) while read is still running. read only reads a results or review directory, so the process
// may exit while it is blocked (on a file system that does not answer)
// and nothing is left half-written: `vmbench report` writes only once
// everything is read.
func untilInterrupted[T any](ctx context.Context, read func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("report interrupted before reading: %w", err)
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1) // read's goroutine never blocks on it
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, fmt.Errorf("report interrupted while reading its inputs (nothing written): %w", ctx.Err())
	}
}
