package tpcc

import (
	"context"
	"testing"
)

// BenchmarkTransactionPG compares, on the throwaway PostgreSQL, the two
// ways a worker can run its statements: pgx's database/sql driver
// statements ("stdlib") and dialect.PGExec ("pgexec", what runs), with
// the deck's mix on four workers, as `tpcc run --threads 4` does.
// cpu-us/op is the process's CPU per transaction; run it with -count
// to see the spread:
//
//	go test -run '^$' -bench TransactionPG -benchtime 3000x -count 3 ./tpcc/
func BenchmarkTransactionPG(b *testing.B) {
	cfg := pgCopy(b)
	cfg.Threads, cfg.WaitScale = 4, 0
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	for _, path := range []string{"stdlib", "pgexec"} {
		b.Run("mix/threads=4/"+path, func(b *testing.B) {
			rs, db := benchRunState(b, cfg)
			rs.pgDriverStmts = path == "stdlib"
			fns := make([]func() error, cfg.Threads)
			for i := range fns {
				w := benchWorker(b, db, rs, i)
				fns[i] = func() error { _, err := w.Event(ctx); return err }
			}
			benchCPU(b, fns)
		})
	}
}
