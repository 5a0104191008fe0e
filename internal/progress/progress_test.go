package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTickerTerminal(t *testing.T) {
	var out bytes.Buffer // read after Stop only
	tk := New(&out, true)
	ticked := make(chan struct{})
	var once sync.Once
	tk.Start(func(elapsed time.Duration) {
		if elapsed <= 0 {
			t.Errorf("elapsed %v, want > 0", elapsed)
		}
		tk.Print("loading")
		once.Do(func() { close(ticked) })
	})
	select {
	case <-ticked:
	case <-time.After(10 * time.Second):
		t.Fatal("no progress line after 10 s")
	}
	tk.Logf("unit %d again", 3)
	if elapsed := tk.Stop(); elapsed < TerminalEvery {
		t.Errorf("Stop returned %v, want at least one tick (%v)", elapsed, TerminalEvery)
	}
	got := out.String()
	if !strings.HasPrefix(got, "\rloading\x1b[K") || !strings.Contains(got, "\x1b[K\r\x1b[Kunit 3 again\n") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("terminal output %q: want redrawn lines, the message on a cleared line, and a cleared line at the end", got)
	}
}

func TestTickerLog(t *testing.T) {
	var out bytes.Buffer
	tk := New(&out, false)
	if tk.every != LogEvery {
		t.Errorf("log interval %v, want %v", tk.every, LogEvery)
	}
	tk.Start(func(time.Duration) { tk.Print("loading") })
	tk.Logf("a message")
	tk.Stop()
	if got := out.String(); got != "a message\n" {
		t.Errorf("log output %q, want only the message (no tick within 5 s, no clearing)", got)
	}
}
