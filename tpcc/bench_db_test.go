package tpcc

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/internal/testdb"
	"vmbench/oltp/hist"
)

// EnvBenchDSN names the server BenchmarkTransaction runs against, as a
// go-sql-driver DSN such as "root@tcp(127.0.0.1:3306)/vmbench_tpcc_perf".
// When it is unset the benchmarks use internal/testdb's throwaway server
// (and skip where no server binary exists). A database without a load gets
// one warehouse (seed 1), dropped again at the end; an existing complete
// load of one warehouse is used as it is.
const EnvBenchDSN = "VMBENCH_TPCC_BENCH_DSN"

// BenchmarkTransaction measures the client's cost of one transaction on a
// real server: allocations per transaction and, as cpu-us/op, the
// process's user+system CPU time per transaction (what matters on a
// machine the client shares with the server; ns/op is mostly the
// server's time). Each transaction type runs alone on one worker; "mix"
// runs the deck's mix on eight workers at once, as `tpcc run --threads 8`
// does.
//
//	VMBENCH_TPCC_BENCH_DSN='root@tcp(127.0.0.1:3306)/vmbench_tpcc_perf' \
//	    go test -run '^$' -bench Transaction -benchtime 2000x ./tpcc/
func BenchmarkTransaction(b *testing.B) {
	cfg := benchConfig(b)
	rs, db := benchRunState(b, cfg)
	// A run's context can be cancelled, which drivers watch per statement.
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	for op, name := range OpNames {
		b.Run(name+"/threads=1", func(b *testing.B) {
			w := benchWorker(b, db, rs, 0)
			benchCPU(b, []func() error{func() error { return w.Execute(ctx, op, 0) }})
		})
	}
	b.Run("mix/threads=8", func(b *testing.B) {
		fns := make([]func() error, cfg.Threads)
		for i := range fns {
			w := benchWorker(b, db, rs, i)
			fns[i] = func() error { _, err := w.Event(ctx); return err }
		}
		benchCPU(b, fns)
	})
}

func benchConfig(b *testing.B) Config {
	t := testdb.BenchTarget(b, EnvBenchDSN)
	c := DefaultConfig()
	c.Warehouses, c.Seed, c.Threads, c.WaitScale = 1, 1, 8, 0
	c.Conn.User, c.Conn.Password, c.Conn.Database = t.User, t.Password, t.Database
	c.Conn.Host, c.Conn.Port, c.Conn.Socket = t.Host, t.Port, t.Socket
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	loaded := false
	if db, err := dialect.Open(ctx, c.DialectConfig()); err == nil { // a missing database fails: prepare creates it
		_, err = readMeta(ctx, db, db.Dialect)
		db.Close()
		loaded = err == nil
	}
	if !loaded {
		load := c
		load.Threads = 1
		if err := Prepare(ctx, load, nil, false); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = Cleanup(context.Background(), c, nil) })
	}
	return c
}

// benchRunState opens the pool the benchmark's workers share and the run
// state of cfg on it.
func benchRunState(b *testing.B, cfg Config) (*runState, *dialect.DB) {
	ctx := context.Background()
	db, err := dialect.Open(ctx, cfg.DialectConfig())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxIdleConns(cfg.Threads + 1)
	m, err := readMeta(ctx, db, db.Dialect)
	if err != nil {
		b.Fatal(err)
	}
	return newRunState(db, cfg, RunConstants(m.Load, NewRand(cfg.Seed, streamRun, 0))), db
}

func benchWorker(b *testing.B, db *dialect.DB, rs *runState, thread int) *worker {
	w, err := newWorker(context.Background(), db, rs, thread, hist.NewRegistry(OpNames, counterNames).NewHandle())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	return w
}

// benchCPU runs b.N calls spread over the fns, one goroutine each, and
// reports the process's CPU time per call.
func benchCPU(b *testing.B, fns []func() error) {
	b.ReportAllocs()
	b.ResetTimer()
	user0, sys0 := processCPU()
	var wg sync.WaitGroup
	errs := make([]error, len(fns))
	for i, fn := range fns {
		n := b.N / len(fns)
		if i < b.N%len(fns) {
			n++
		}
		wg.Go(func() {
			for range n {
				if err := fn(); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	user1, sys1 := processCPU()
	b.StopTimer()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(b.N) }
	b.ReportMetric(us(user1-user0+sys1-sys0), "cpu-us/op")
	b.ReportMetric(us(user1-user0), "user-us/op")
}
