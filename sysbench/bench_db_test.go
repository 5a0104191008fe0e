package sysbench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/internal/testdb"
	"vmbench/oltp/hist"
)

// EnvBenchDSN names the server BenchmarkTransaction runs against, as a
// go-sql-driver DSN such as "root@tcp(127.0.0.1:3306)/vmbench_perf". When
// it is unset the benchmarks use internal/testdb's throwaway server (and
// skip where no server binary exists), so `make bench` runs anywhere. The
// database is created if missing;
// sbtest1..sbtest4 (10,000 rows each) are loaded when absent and dropped
// again at the end, and existing ones are used as they are.
const EnvBenchDSN = "VMBENCH_BENCH_DSN"

// BenchmarkTransaction measures the client's cost of one event (one
// transaction of the workload) on a real server: allocations per event
// and, as cpu-us/op, the process's user+system CPU time per event (the
// figure that matters on a machine the client shares with the server;
// ns/op is mostly the server's time), user-us/op its user part. threads=1 runs the events one after
// another on one worker; threads=8 runs them on eight workers at once, as
// a sysbench --threads=8 run does.
//
//	VMBENCH_BENCH_DSN='root@tcp(127.0.0.1:3306)/vmbench_perf' \
//	    go test -run '^$' -bench Transaction -benchtime 5000x ./sysbench/
func BenchmarkTransaction(b *testing.B) {
	cfg := benchConfig(b)
	for _, w := range []Workload{ReadWrite, ReadOnly, PointSelect} {
		for _, threads := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/threads=%d", w, threads), func(b *testing.B) {
				c := cfg
				c.Workload, c.Threads = w, threads
				benchEvents(b, c)
			})
		}
	}
}

func benchConfig(b *testing.B) Config {
	t := testdb.BenchTarget(b, EnvBenchDSN)
	c := DefaultConfig()
	c.Tables, c.TableSize, c.Rand.Seed = 4, 10000, 1
	c.Conn.User, c.Conn.Password, c.Conn.Database = t.User, t.Password, t.Database
	c.Conn.Host, c.Conn.Port, c.Conn.Socket = t.Host, t.Port, t.Socket
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	switch err := Prepare(ctx, c, nil, false); {
	case errors.Is(err, ErrTablesExist):
	case err != nil:
		b.Fatal(err)
	default:
		b.Cleanup(func() { _ = Cleanup(context.Background(), c, nil) })
	}
	return c
}

// benchEvents runs b.N events of c over c.Threads workers and reports the
// process's CPU time per event.
func benchEvents(b *testing.B, c Config) {
	ctx := context.Background()
	db, err := dialect.Open(ctx, c.DialectConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(c.Threads + 1)
	spec, err := NewSpec(c, db)
	if err != nil {
		b.Fatal(err)
	}
	reg := hist.NewRegistry(spec.Ops, spec.Counters)
	workers := make([]interface {
		Event(context.Context) (int, error)
		Close() error
	}, c.Threads)
	for i := range workers {
		w, err := spec.NewWorker(ctx, i, reg.NewHandle())
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		workers[i] = w
	}
	b.ReportAllocs()
	b.ResetTimer()
	user0, sys0 := processCPU()
	var wg sync.WaitGroup
	errs := make([]error, len(workers))
	for i, w := range workers {
		n := b.N / len(workers)
		if i < b.N%len(workers) {
			n++
		}
		wg.Go(func() {
			for range n {
				if _, err := w.Event(ctx); err != nil {
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
