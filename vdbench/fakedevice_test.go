package vdbench

import (
	"fmt"

	"vmbench/oltp"
)

// fakeOpts returns Options whose backends are the given devices, by SD
// name.
func fakeOpts(devs map[string]*fakeDevice) Options {
	return Options{Backend: func(sd SD) (Backend, error) {
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
