package blockio

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/oltp"
	"vmbench/vdbench/internal/blocktest"
)

// intervalsStart is when the golden intervals start.
var intervalsStart = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// ivOf is one stored interval of reads of 4 KiB at the given latencies.
func ivOf(at, length time.Duration, lats []time.Duration, writes int) oltp.Interval {
	r := blocktest.Result(intervalsStart, length, lats[writes:], lats[:writes], false)
	return oltp.Interval{At: at, Length: length, Ops: r.Ops, Counters: r.Counters}
}

func TestWriteIntervalsGolden(t *testing.T) {
	pre := blocktest.Result(intervalsStart, time.Second, blocktest.Repeat(500*time.Microsecond, 1000), nil, false)
	pre.Phase = oltp.PhasePrecondition
	pre.Intervals = []oltp.Interval{ivOf(time.Second, time.Second, blocktest.Repeat(500*time.Microsecond, 1000), 0)}
	m0 := intervalsStart.Add(time.Second)
	var reads, writes []time.Duration
	res := blocktest.Result(m0, 3*time.Second, nil, nil, false)
	for i := range 3 {
		lats := make([]time.Duration, 2000+100*i)
		for k := range lats {
			lats[k] = time.Duration(400+k%200) * time.Microsecond
		}
		writes, reads = append(writes, lats[:600]...), append(reads, lats[600:]...)
		res.Intervals = append(res.Intervals, ivOf(time.Duration(i+1)*time.Second, time.Second, lats, 600))
	}
	tot := blocktest.Result(m0, 3*time.Second, reads, writes, false) // totals of the three
	res.Ops, res.Counters, res.Precondition = tot.Ops, tot.Counters, pre
	var b strings.Builder
	if err := WriteIntervals(&b, Point{Label: "max", Result: res}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "report_intervals.golden"), []byte(b.String()))
}
