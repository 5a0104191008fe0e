package dialect

import (
	"context"
	"testing"

	"vmbench/internal/testdb"
)

// TestKillerMySQL: a statement run under Killer.Context is ended by KILL
// QUERY when the event's context is cancelled inside Enter..Leave, and is
// not killed between events or inside Settle.
func TestKillerMySQL(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db := mustOpen(t, ctx, serverConfig(srv, srv.NewDatabase(t)))
	c := mustConn(t, ctx, db)
	var id int64
	if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	k := NewKiller(db)
	defer k.Close()
	k.SetConnID(id)

	// Killed: the SLEEP is interrupted once ev is cancelled.
	ev, cancel := context.WithCancel(ctx)
	sctx := k.Context(ev)
	if sctx.Done() != nil {
		t.Fatal("the statement context of a MySQL event can be cancelled: go-sql-driver would watch it")
	}
	if k.Watched() != ev {
		t.Fatal("Watched is not the event's context")
	}
	k.Enter()
	started := make(chan struct{})
	go func() {
		// Cancel once the SLEEP is on the server (a condition, not a wait).
		for {
			var n int
			if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ? AND info LIKE 'SELECT SLEEP%'", id).Scan(&n); err != nil || n > 0 {
				break
			}
		}
		close(started)
		cancel()
	}()
	var slept int
	err := c.QueryRowContext(sctx, "SELECT SLEEP(600)").Scan(&slept)
	<-started
	k.Leave()
	// MariaDB fails the killed statement with 1317; MySQL's SLEEP returns 1.
	if !(err != nil && Code(err) == 1317 || err == nil && slept == 1) {
		t.Errorf("SLEEP: %d, %v; want error 1317 or 1 (interrupted by KILL QUERY)", slept, err)
	}

	// Not killed: a cancellation outside Enter..Leave, then inside Settle.
	ev2, cancel2 := context.WithCancel(ctx)
	sctx = k.Context(ev2)
	cancel2() // between events: nothing to kill
	k.Enter()
	err = k.Settle(func() error { return c.QueryRowContext(sctx, "SELECT SLEEP(0.2)").Scan(&slept) })
	k.Leave()
	if err != nil || slept != 0 {
		t.Errorf("a settled statement: SLEEP returned %d, %v; want 0 (not killed)", slept, err)
	}
}
