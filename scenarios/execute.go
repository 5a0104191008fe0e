package scenarios

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/oltp"
	"vmbench/vsphere"
)

// runAll starts the workload on every VM with a common start time and
// returns one measure-phase Result per VM, in VM order. A failure on one
// VM stops all of them.
func (c *campaign) runAll(ctx context.Context, vms []vsphere.VM, dbs []DB) ([]*oltp.Result, error) {
	startAt := time.Now().Add(c.opts.StartDelay)
	c.logf("common start at %s", startAt.Format("15:04:05.000"))
	live := newLiveView(c, len(vms))
	results := make([]*oltp.Result, len(vms))
	g, gctx := errgroup.WithContext(ctx)
	args := c.spec.Workload.Args()
	for i, vm := range vms {
		g.Go(func() error {
			hooks := RunHooks{StartAt: startAt,
				Labels:     map[string]string{"vm": vm.Name, "role": vm.Role, "datastore": vm.Datastore, "campaign": c.id},
				OnInterval: func(r oltp.IntervalReport) { live.add(r) }}
			if i == 0 {
				hooks.OnPhase = func(p string, d time.Duration) { c.logf("phase %s (%s)", p, phaseLength(d)) }
			}
			r, err := c.driver.Run(gctx, c.spec.Workload.Name, args, dbs[i], hooks)
			results[i] = r // a partial Result comes back with an interrupt
			if err != nil {
				return fmt.Errorf("run on %s: %w", vm.Name, err)
			}
			return nil
		})
	}
	err := g.Wait()
	if err != nil {
		// Keep what was measured until the failure or Ctrl-C, marked
		// interrupted in each Result, for the post-mortem.
		for _, r := range results {
			if r != nil && c.writeVMResult(r) == nil {
				c.vmResults++
			}
		}
		return nil, err
	}
	return results, nil
}

func (c *campaign) writeVMResult(r *oltp.Result) error {
	return r.WriteFile(filepath.Join(c.dir, "vms", r.Labels["vm"]+".json"))
}

func phaseLength(d time.Duration) string {
	if d == 0 {
		return "until the event limit"
	}
	return d.String()
}

// aggregate writes one Result per VM, the merged Result and the review.
func (c *campaign) aggregate(results []*oltp.Result) (*Outcome, error) {
	for _, r := range results {
		if err := c.writeVMResult(r); err != nil {
			return nil, err
		}
		c.vmResults++
	}
	merged, err := oltp.Merge(results...)
	if err != nil {
		return nil, fmt.Errorf("merging the VMs' results: %w", err)
	}
	merged.Labels = map[string]string{"campaign": c.id, "role": c.spec.VMs.Role}
	if err := merged.WriteFile(filepath.Join(c.dir, "merged.json")); err != nil {
		return nil, err
	}
	rv, err := NewReview(c.spec.Name, results, merged)
	if err != nil {
		return nil, err
	}
	if c.opts.Simulate {
		where := "an embedded SQLite database per VM"
		if c.opts.DBServer != nil {
			where = "a database per VM on " + c.opts.DBServer.String()
		}
		rv.Simulated = "simulated: VMs in an in-process vSphere simulator (vcsim), " + where +
			", and the campaign file's scaled-down simulate: sizes; the figures measure this machine, not the protocol's servers"
	}
	var md bytesWriter
	if err := rv.WriteMarkdown(&md); err != nil {
		return nil, err
	}
	if err := oltp.WriteFileAtomic(filepath.Join(c.dir, "report.md"), md.b); err != nil {
		return nil, err
	}
	fmt.Fprintln(c.opts.Out)
	if err := rv.WriteText(c.opts.Out); err != nil {
		return nil, err
	}
	c.logf("wrote %d VM results, merged.json and report.md", len(results))
	return &Outcome{Review: rv, Merged: merged}, nil
}

type bytesWriter struct{ b []byte }

func (w *bytesWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// liveView prints one line per report interval for the whole campaign once
// every VM has reported that interval: TPS summed over VMs, the average
// latency over all their events, and the slowest VM's p95.
type liveView struct {
	c    *campaign
	n    int
	mu   sync.Mutex
	rows map[string]*liveRow
}

type liveRow struct {
	vms    int
	events int64
	sum    time.Duration
	p95    time.Duration
	length time.Duration
	errs   int64
}

func newLiveView(c *campaign, n int) *liveView {
	return &liveView{c: c, n: n, rows: map[string]*liveRow{}}
}

func (l *liveView) add(r oltp.IntervalReport) {
	key := fmt.Sprintf("%s/%d", r.Phase, r.At.Round(100*time.Millisecond)/time.Millisecond)
	var events int64
	var sum, p95 time.Duration
	lat := r.Latency
	if len(r.Intended) > 0 {
		lat = r.Intended // as the review table: from the intended start or submission
	}
	for _, h := range lat {
		events += h.Count()
		sum += h.Sum()
		p95 = max(p95, h.Percentile(95))
	}
	var errs int64
	for k, v := range r.Counters {
		if len(k) > 7 && k[:7] == "errors." {
			errs += v
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	row := l.rows[key]
	if row == nil {
		row = &liveRow{}
		l.rows[key] = row
	}
	row.vms++
	row.events += events
	row.sum += sum
	row.p95 = max(row.p95, p95)
	row.length = max(row.length, r.Length)
	row.errs += errs
	if row.vms < l.n {
		return
	}
	delete(l.rows, key)
	avg := 0.0
	if row.events > 0 {
		avg = ms(row.sum) / float64(row.events)
	}
	secs := row.length.Seconds()
	fmt.Fprintf(l.c.log, "    [ %4.0fs %-12s] vms: %d tps: %.2f lat avg (ms): %.2f max p95 (ms): %.2f err/s: %.2f\n",
		r.At.Seconds(), r.Phase, row.vms, float64(row.events)/secs, avg, ms(row.p95), float64(row.errs)/secs)
}
