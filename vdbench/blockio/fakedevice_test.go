package blockio

import (
	"fmt"
	"testing"

	"vmbench/oltp"
	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

// fakeOpts returns Options whose backends are the given devices, by SD
// name.
func fakeOpts(devs map[string]*blocktest.FakeDevice) Options {
	return Options{Backend: func(sd parmfile.SD) (Backend, error) {
		d, ok := devs[sd.Name]
		if !ok {
			return nil, fmt.Errorf("no fake device for sd=%s", sd.Name)
		}
		return d, nil
	}}
}

// phaseTotals returns the I/Os counted and the bytes counted, per op, over
// the precondition and measure phases of res. Bytes are counted with their
// I/O (hist.Handle.AddToEvent), so the two agree exactly, per phase and
// per interval.
func phaseTotals(res *oltp.Result) (ios, ioBytes [2]int64) {
	for _, r := range []*oltp.Result{res.Precondition, res} {
		if r == nil {
			continue
		}
		for op := range 2 {
			ios[op] += r.Ops[op].Latency.Count
		}
		ioBytes[OpRead] += r.Counters[CounterBytesRead]
		ioBytes[OpWrite] += r.Counters[CounterBytesWritten]
	}
	return ios, ioBytes
}

// TestBlocktestNames: blocktest names the ops and counters of a Result
// as the engine does.
func TestBlocktestNames(t *testing.T) {
	if blocktest.OpRead != ioOps[OpRead] || blocktest.OpWrite != ioOps[OpWrite] ||
		blocktest.CounterBytesRead != CounterBytesRead || blocktest.CounterBytesWritten != CounterBytesWritten {
		t.Errorf("blocktest names ops %s, %s and counters %s, %s; the engine %v and %s, %s", blocktest.OpRead, blocktest.OpWrite,
			blocktest.CounterBytesRead, blocktest.CounterBytesWritten, ioOps, CounterBytesRead, CounterBytesWritten)
	}
}
