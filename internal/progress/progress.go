// Package progress draws a loader's progress line: on a terminal one line
// redrawn in place every half second, in a log (file, pipe) a line every
// 5 s, with message lines in between. The workloads write the line's text;
// this package writes it. It imports nothing from vmbench.
package progress

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Display intervals: a terminal line is redrawn often; a log gets a line
// every few seconds.
const (
	TerminalEvery = 500 * time.Millisecond
	LogEvery      = 5 * time.Second
)

// Ticker has a progress line printed every TerminalEvery (terminal) or
// LogEvery (log) between Start and Stop. Its writes to w are serialised.
type Ticker struct {
	w        io.Writer
	terminal bool
	every    time.Duration

	mu    sync.Mutex // serialises writes to w
	begin time.Time
	quit  chan struct{}
	wg    sync.WaitGroup
}

// New returns a Ticker writing to w; terminal says w is a terminal, where
// the line is redrawn in place.
func New(w io.Writer, terminal bool) *Ticker {
	t := &Ticker{w: w, terminal: terminal, every: LogEvery, quit: make(chan struct{})}
	if terminal {
		t.every = TerminalEvery
	}
	return t
}

// Start starts the clock and calls draw with the time since Start at
// every tick until Stop; draw draws its line with Print. Start and Stop
// are called once each.
func (t *Ticker) Start(draw func(elapsed time.Duration)) {
	t.begin = time.Now()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		tk := time.NewTicker(t.every)
		defer tk.Stop()
		for {
			select {
			case <-t.quit:
				return
			case now := <-tk.C:
				draw(now.Sub(t.begin))
			}
		}
	}()
}

// Stop ends the display, clears a terminal line and returns the time since
// Start.
func (t *Ticker) Stop() time.Duration {
	close(t.quit)
	t.wg.Wait()
	if t.terminal {
		t.mu.Lock()
		fmt.Fprint(t.w, "\r\x1b[K")
		t.mu.Unlock()
	}
	return time.Since(t.begin)
}

// Print writes one progress line: redrawn in place on a terminal, else
// as a line of its own.
func (t *Ticker) Print(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.terminal {
		fmt.Fprint(t.w, "\r"+line+"\x1b[K")
		return
	}
	fmt.Fprintln(t.w, line)
}

// Logf writes one message line, above the progress line on a terminal.
func (t *Ticker) Logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.terminal {
		fmt.Fprint(t.w, "\r\x1b[K")
	}
	fmt.Fprintln(t.w, msg)
}
