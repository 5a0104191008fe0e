package tpcc

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
)

// TestGate: a new gate lets nothing begin until it opens; hold waits for
// every shared holder and keeps new ones out until open; after end a
// transaction waits for its context; hold gives up when aborted.
func TestGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		g := newGate()
		entered := make(chan error, 3)
		go func() { entered <- g.enter(ctx) }()
		synctest.Wait()
		if len(entered) != 0 {
			t.Fatal("a transaction began before the window opened")
		}
		g.open()
		if err := <-entered; err != nil {
			t.Fatal(err)
		}

		held := make(chan bool, 1)
		go func() { held <- g.hold(nil) }()
		synctest.Wait()
		if len(held) != 0 {
			t.Fatal("hold returned while a transaction held the gate")
		}
		go func() { entered <- g.enter(ctx) }()
		synctest.Wait()
		if len(entered) != 0 {
			t.Fatal("a transaction began while a reading waited")
		}
		g.leave()
		if !<-held {
			t.Fatal("hold failed")
		}
		synctest.Wait()
		if len(entered) != 0 {
			t.Fatal("a transaction began while the gate was held")
		}
		g.end()
		synctest.Wait()
		if len(entered) != 0 {
			t.Fatal("a transaction began after the window ended")
		}
		cancel()
		if err := <-entered; !errors.Is(err, context.Canceled) {
			t.Fatalf("enter after the end = %v, want the context's error", err)
		}

		g2 := newGate()
		g2.open()
		if err := g2.enter(t.Context()); err != nil {
			t.Fatal(err)
		}
		abort := make(chan struct{})
		go func() { held <- g2.hold(abort) }()
		synctest.Wait()
		close(abort)
		if <-held {
			t.Fatal("hold succeeded with a holder left, after the abort")
		}
	})
}
