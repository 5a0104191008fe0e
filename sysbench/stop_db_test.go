package sysbench

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTotalTimeIsTheRunsTime: a run whose every statement waits for row
// locks that another session holds goes on past --time for the graceful
// stop, then its statements are cancelled. The summary's total time is
// the time the run took, not the measured window: at least --time plus
// the graceful stop (the statements could not end before their
// cancellation) and at most the time the call took; a Stop: line says
// so, and the Result records the real end.
func TestTotalTimeIsTheRunsTime(t *testing.T) {
	onDatabases(t, func(t *testing.T, config configFunc) {
		ctx := ctxT(t)
		c := config(t, UpdateIndex)
		c.Tables, c.TableSize = 1, 10
		prepareAndLock(t, ctx, c)
		rc := c.RunConfig()
		rc.Events, rc.Time, rc.GracefulStop = 0, time.Second, 2*time.Second
		var out bytes.Buffer
		began := time.Now()
		res, err := runPrinted(ctx, c, rc, &out)
		took := time.Since(began)
		if err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		m := regexp.MustCompile(`total time:\s+([0-9.]+)s`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no total time in the summary:\n%s", out.String())
		}
		total, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		least := (rc.Time + rc.GracefulStop).Seconds()
		if total < least || total > took.Seconds() {
			t.Errorf("total time %.4fs; want from --time + the graceful stop (%.1fs) to the %.4fs the run took", total, least, took.Seconds())
		}
		if res.Elapsed < rc.Time || res.Stopped.Sub(res.End) < rc.GracefulStop {
			t.Errorf("result: elapsed %s, stopped %s after its end; want the measured %s and the graceful stop %s",
				res.Elapsed, res.Stopped.Sub(res.End), rc.Time, rc.GracefulStop)
		}
		if !strings.Contains(out.String(), "\nStop: the run ended ") {
			t.Errorf("no Stop: line in the summary:\n%s", out.String())
		}
	}, "MariaDB", "PostgreSQL")
}
