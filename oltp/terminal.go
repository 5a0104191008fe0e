package oltp

import (
	"container/heap"
	"context"
	"time"

	"vmbench/oltp/hist"
)

// Terminal is one emulated user of a terminal-driven run (TPC-C clause
// 5.2): it chooses each event it submits and the waits around it. A
// terminal has at most one event outstanding, and the Runner never calls
// its methods concurrently.
type Terminal interface {
	// Next returns the operation (an index into Spec.Ops) the terminal
	// submits next and the keying time to wait before submitting it
	// (TPC-C 5.2.5.2; 0 for none).
	Next() (op int, keying time.Duration)
	// Think returns the think time after an event of op completed (TPC-C
	// 5.2.5.4; 0 for none).
	Think(op int) time.Duration
}

// Executor is the Worker of a terminal-driven run: the Runner hands it the
// events terminals submitted, one at a time, instead of calling Event.
type Executor interface {
	Worker
	// Execute runs op on behalf of terminal (0-based). Errors are as for
	// Worker.Event: retryable failures are the workload's business, a
	// returned error is fatal.
	Execute(ctx context.Context, op, terminal int) error
}

// submission is an event a terminal submitted: at is the instant the
// terminal finished keying it, from which its response time counts.
type submission struct {
	at       time.Time
	terminal int
	op       int
}

// agenda is the min-heap of terminals waiting to submit, by time.
type agenda []submission

func (a agenda) Len() int           { return len(a) }
func (a agenda) Less(i, j int) bool { return a[i].at.Before(a[j].at) }
func (a agenda) Swap(i, j int)      { a[i], a[j] = a[j], a[i] }
func (a *agenda) Push(x any)        { *a = append(*a, x.(submission)) }
func (a *agenda) Pop() any {
	old := *a
	s := old[len(old)-1]
	*a = old[:len(old)-1]
	return s
}

// terminals is the machinery of a terminal-driven run: the terminals, the
// queue of submitted events that Executors take from (sysbench's "queue
// length" is its length), and the channel through which Executors hand a
// terminal back after its event, to wait its think and keying times.
type terminals struct {
	terms []Terminal
	queue chan submission // submitted, waiting for an Executor
	later chan submission // to submit at .at, through the scheduler
	stop  chan struct{}
}

func newTerminals(spec Spec, n int) *terminals {
	t := &terminals{terms: make([]Terminal, n), queue: make(chan submission, n), later: make(chan submission, n), stop: make(chan struct{})}
	for i := range t.terms {
		t.terms[i] = spec.NewTerminal(i)
	}
	return t
}

// start schedules every terminal's first event from start and runs the
// scheduler until stop is closed.
func (t *terminals) start(start time.Time) {
	a := make(agenda, 0, len(t.terms))
	for i, term := range t.terms {
		op, keying := term.Next()
		a = append(a, submission{at: start.Add(keying), terminal: i, op: op})
	}
	heap.Init(&a)
	go t.schedule(a)
}

// schedule submits each waiting terminal's event when its time comes. Its
// timer fires late by the scheduler's wake-up delay, but the submission
// keeps its due time, so that delay counts in the response time.
func (t *terminals) schedule(a agenda) {
	tm := time.NewTimer(time.Hour)
	defer tm.Stop()
	for {
		now := time.Now()
		for len(a) > 0 && !a[0].at.After(now) {
			t.queue <- heap.Pop(&a).(submission) // never blocks: cap = terminals
		}
		var wake <-chan time.Time
		if len(a) > 0 {
			tm.Reset(a[0].at.Sub(now))
			wake = tm.C
		}
		select {
		case s := <-t.later:
			heap.Push(&a, s)
		case <-wake:
		case <-t.stop:
			return
		}
	}
}

// CounterTerminalWait is the counter that a terminal-driven Result (Loop
// TerminalLoop) holds beside its workload's own: the time in ns that the
// terminals waited after the events counted, the think time after each
// and the keying time of the next, summed. With the response times it
// closes Little's law over the measured window: terminals = events/s x
// (mean response time + CounterTerminalWait / events), short only by the
// cycles that cross the window's edges.
const CounterTerminalWait = "terminals.wait_ns"

// after returns terminal s.terminal's next event once its event ended at
// end: the terminal thinks and keys it, and it is due after both.
func (t *terminals) after(s submission, end time.Time) submission {
	term := t.terms[s.terminal]
	wait := term.Think(s.op)
	op, keying := term.Next()
	return submission{at: end.Add(wait + keying), terminal: s.terminal, op: op}
}

// submit submits next, the event of a terminal whose last one ended at
// end: through the scheduler at its time, or straight into the queue when
// it has no wait.
func (t *terminals) submit(next submission, end time.Time) {
	if !next.at.After(end) {
		t.queue <- next
		return
	}
	t.later <- next
}

// execLoop is one Executor's loop in a terminal-driven run.
func (r *run) execLoop(ctx context.Context, w Worker, h *hist.Handle) {
	x := w.(Executor)
	for !r.stopping.Load() {
		var s submission
		select {
		case s = <-r.terms.queue:
		case <-r.terms.stop:
			return
		}
		ok, held := r.take()
		if !ok {
			return
		}
		begin := time.Now()
		err := x.Execute(ctx, s.op, s.terminal)
		end := time.Now()
		var next submission
		if !r.settle(h, end, err, held, func() {
			next = r.terms.after(s, end)
			h.AddToEvent(r.waitCounter, int64(next.at.Sub(end)))
			h.RecordPair(s.op, end.Sub(begin), r.nOps+s.op, end.Sub(s.at))
		}) {
			return
		}
		r.terms.submit(next, end)
	}
}
