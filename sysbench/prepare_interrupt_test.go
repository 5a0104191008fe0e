package sysbench

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"vmbench/dialect"
)

// cancelAfter is a progress writer that cancels the prepare once the
// loader has reported rows, i.e. in the middle of the load.
type cancelAfter struct {
	cancel context.CancelFunc
	n      int
}

func (c *cancelAfter) Write(b []byte) (int, error) {
	c.n++
	if c.n == 2 { // the first line announces the load; the next reports progress
		c.cancel()
	}
	return len(b), nil
}

// TestInterruptedPrepareLeavesNoTables: Ctrl-C in the middle of a load
// removes the partly loaded tables, so a later run cannot measure half a
// data set (and a later prepare is not refused).
func TestInterruptedPrepareLeavesNoTables(t *testing.T) {
	c := mariaConfig(t, ReadWrite)
	c.Tables, c.TableSize, c.Threads = 2, 2_000_000, 2
	ctx, cancel := context.WithCancel(ctxT(t))
	err := Prepare(ctx, c, &cancelAfter{cancel: cancel}, true)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "partly loaded tables were removed") {
		t.Fatalf("Prepare = %v, want a cancelled prepare that removed its tables", err)
	}
	db := openT(t, c)
	for _, name := range []string{"sbtest1", "sbtest2"} {
		if ok, err := dialect.TableExists(ctxT(t), db, db.Dialect, name); ok || err != nil {
			t.Errorf("%s after an interrupted prepare: exists=%v err=%v", name, ok, err)
		}
	}
	c.TableSize = 100
	if err := Prepare(ctxT(t), c, io.Discard, false); err != nil {
		t.Errorf("prepare after an interrupted one: %v", err)
	}
}
