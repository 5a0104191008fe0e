package sysbench

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"vmbench/dialect"
	"vmbench/internal/testdb"
	"vmbench/oltp/hist"
)

// TestStoppedEventLeavesNoTransaction: an oltp_read_write event stopped
// between two statements after its index UPDATE, by a cancelled context
// (Ctrl-C, the end of a run) or by an error, leaves no transaction behind:
// afterwards every connection of the pool reports @@in_transaction = 0,
// and another session locks every row at once (the UPDATE's row lock is
// gone).
func TestStoppedEventLeavesNoTransaction(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(cancel context.CancelFunc) error
	}{
		{"cancelled", func(cancel context.CancelFunc) error { cancel(); return nil }},
		{"failed", func(context.CancelFunc) error { return errors.New("injected failure between two statements") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mariaConfig(t, ReadWrite)
			ctx := ctxT(t)
			if err := Prepare(ctx, c, nil, false); err != nil {
				t.Fatal(err)
			}
			db := openT(t, c)
			db.SetMaxIdleConns(8)
			w := newTestWorker(t, c, db)
			ectx, cancel := context.WithCancel(ctx)
			defer cancel()
			updated := false
			w.betweenSteps = func(i int) error {
				if w.s.mix.steps[i].g != gIndexUpdate {
					return nil
				}
				updated = true
				return tc.stop(cancel)
			}
			if _, err := w.Event(ectx); err == nil || !updated {
				t.Fatalf("Event returned %v after the UPDATE (reached: %v), want an error", err, updated)
			}
			t.Logf("worker connection after the stop: kept %v", w.conn != nil)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			var locks []string
			for tb := 1; tb <= c.Tables; tb++ {
				locks = append(locks, "SELECT COUNT(*) FROM sbtest"+strconv.Itoa(tb)+" FOR UPDATE")
			}
			testdb.CheckNoTransaction(t, ctx, db.DB, openT(t, c).DB, locks...)
		})
	}
}

// newTestWorker returns thread 0's worker of an oltp run of c on db.
func newTestWorker(t *testing.T, c Config, db *dialect.DB) *worker {
	t.Helper()
	spec, err := NewSpec(c, db)
	if err != nil {
		t.Fatal(err)
	}
	ow, err := spec.NewWorker(ctxT(t), 0, hist.NewRegistry(spec.Ops, spec.Counters).NewHandle())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ow.Close() })
	return ow.(*worker)
}
