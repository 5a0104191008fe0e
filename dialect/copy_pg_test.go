package dialect

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"vmbench/internal/testdb"
)

// TestCopyDatabasePostgres: CopyDatabase on PostgreSQL makes each of
// three empty databases, concurrently (as a campaign restores its VMs),
// a copy of the template: rows, the index and the SERIAL sequence's
// value. A database with tables is refused, and so is a template that
// someone is connected to, naming the session.
func TestCopyDatabasePostgres(t *testing.T) {
	ctx := testContext(t)
	src := pgConfig(t)
	func() {
		db, err := Open(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		copyFixture(t, db, "SERIAL PRIMARY KEY")
	}() // closed: a template is copied only while no one is connected to it
	srv := testdb.SharedPostgres(t)
	dsts := []Config{src.WithDatabase(srv.NewDatabase(t)), src.WithDatabase(srv.NewDatabase(t)), src.WithDatabase(srv.NewDatabase(t))}
	errs := make([]error, len(dsts))
	var wg sync.WaitGroup
	for i, dst := range dsts {
		wg.Go(func() { errs[i] = CopyDatabase(ctx, src, dst) })
	}
	wg.Wait()
	for i, dst := range dsts {
		if errs[i] != nil {
			t.Fatalf("copy to %s: %v", dst.Database, errs[i])
		}
		db := mustOpen(t, ctx, dst)
		if n, sum, next := copiedRows(t, db); n != 3 || sum != 6 || next != 4 {
			t.Errorf("%s holds %d rows, sum %d, next id %d; want 3, 6, 4", dst.Database, n, sum, next)
		}
		var idx int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'k_1'").Scan(&idx); err != nil || idx != 1 {
			t.Errorf("index k_1 in %s: %d, %v", dst.Database, idx, err)
		}
	}
	if names, err := Tables(ctx, dsts[0]); err != nil || !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("Tables = %v, %v; want [a b]", names, err)
	}
	if _, err := Tables(ctx, src.WithDatabase("vmbench_no_such_db")); !IsUnknownDatabase(err) {
		t.Errorf("Tables of a missing database: %v, want unknown database", err)
	}
	if err := CopyDatabase(ctx, src, dsts[0]); err == nil || !strings.Contains(err.Error(), "holds tables already (a, b)") {
		t.Errorf("a copy onto a database with tables: %v", err)
	}

	// A session on the template: PostgreSQL waits 5 s for it to leave,
	// then the copy is refused with the session named.
	w := templateWait
	templateWait = 0
	t.Cleanup(func() { templateWait = w })
	held := mustOpen(t, ctx, src)
	if err := held.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	err := CopyDatabase(ctx, src, src.WithDatabase(srv.NewDatabase(t)))
	if err == nil || SQLState(err) != pgObjectInUse || !strings.Contains(err.Error(), "sessions on "+src.Database+": pid ") {
		t.Errorf("a copy of a template in use: %v", err)
	}
}
