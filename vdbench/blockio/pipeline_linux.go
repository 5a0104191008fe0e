//go:build linux

package blockio

import (
	"context"
	"fmt"

	"vmbench/oltp"
)

// ringPipeline is the io_uring engine's closed loop (oltp.Pipeline): one
// goroutine per SD starts every thread's I/O on the SD's ring and reaps
// the completions itself, submitting the I/Os it started with each wait
// (one io_uring_enter per batch), as fio's io_uring engine does with
// iodepth=threads=. Thread t's I/O is on ring slot t, with its buffers.
type ringPipeline struct {
	ring    *ring
	workers []*worker
	plans   []ioPlan // each thread's I/O in flight
}

// newPipeline is the SD's Spec.NewPipeline with the io_uring engine: it
// stops the ring's reaper goroutine (an open-loop point before started
// it) and drives workers, which are the SD's (newWorker, one per slot).
func (l *sdLoad) newPipeline(_ context.Context, ws []oltp.Worker) (oltp.Pipeline, error) {
	if len(ws) != len(l.ring.slots) {
		return nil, fmt.Errorf("sd=%s: %d threads for a ring of %d slots", l.sd.Name, len(ws), len(l.ring.slots))
	}
	p := &ringPipeline{ring: l.ring, workers: make([]*worker, len(ws)), plans: make([]ioPlan, len(ws))}
	for i, w := range ws {
		vw, ok := w.(*worker)
		if !ok {
			return nil, fmt.Errorf("sd=%s: thread %d is not a vdbench worker", l.sd.Name, i+1)
		}
		p.workers[i] = vw
	}
	l.ring.stopReaper()
	return p, nil
}

// Start chooses thread t's next I/O and queues it on slot t.
func (p *ringPipeline) Start(t int) error {
	io, err := p.workers[t].next()
	if err != nil {
		return err
	}
	p.plans[t] = io
	op, index := p.ring.slots[t].opcode(io.op == OpWrite, io.buf)
	p.ring.queue(op, io.buf, io.off, uint64(t), index)
	return nil
}

// Reap submits the queued I/Os, waits for at least one completion, and
// settles each (a short transfer is an error, as with pread).
func (p *ringPipeline) Reap(ended func(t, op int, err error)) error {
	return p.ring.wait(func(tag uint64, res int32) {
		t := int(tag)
		io := p.plans[t]
		_, err := ringResult(res, len(io.buf))
		op, err := p.workers[t].done(io, err)
		ended(t, op, err)
	})
}
