package scenarios

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"vmbench/internal/atomicfile"
	"vmbench/oltp"
	"vmbench/vsphere"
)

// This file records what the platform under a campaign did while it
// measured, and what it is: vSphere's 20 s PerformanceManager samples of
// the hosts and VMs over the measured window, and the hosts' facts.

// platformTimeout bounds the reads of counters and facts after a run: the
// workload's own figures stand without them, so a slow vCenter must not
// hold the campaign.
const platformTimeout = 2 * time.Minute

// recordPlatform attaches to each VM's Result (results[i] is vms[i]'s) the
// counter series of that VM and of its host over the measured window
// (from the earliest start to the latest end of the Results), and every
// host's facts (Result.Hosts, keyed by host name). Merging the Results
// then keeps each series once. Counters the server does not have, or has
// no samples of yet (a window under 20 s has none), are logged; a failure
// to read them is a warning, never the campaign's error.
func (c *campaign) recordPlatform(ctx context.Context, vms []vsphere.VM, results []*oltp.Result) {
	if c.vc.sess == nil || len(results) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), platformTimeout)
	defer cancel()
	var refs []string
	var start, end time.Time
	for i, r := range results {
		if r == nil {
			continue
		}
		refs = append(refs, vms[i].MoRef)
		if start.IsZero() || r.Start.Before(start) {
			start = r.Start
		}
		end = maxTime(end, r.End)
	}
	facts, err := c.vc.sess.Facts(ctx, refs, nil)
	if err != nil {
		c.logf("warning: could not read the hosts' facts: %v", err)
	}
	hosts := map[string]map[string]string{}
	for _, h := range facts.Hosts {
		hosts[h.Name] = h.Map()
	}
	perf, err := c.vc.sess.ReadCounters(ctx, vsphere.PerfQuery{Start: start, End: end, VMs: refs})
	if err != nil {
		c.logf("warning: could not read the hosts' and VMs' counters for %s .. %s: %v", start.Format(time.TimeOnly), end.Format(time.TimeOnly), err)
	}
	if len(perf.Missing) > 0 {
		c.logf("%s", c.missingCounters(perf.Missing))
	}
	hostOf := map[string]string{} // VM MoRef -> host MoRef
	for _, p := range facts.VMs {
		hostOf[p.VM] = p.HostRef
	}
	for i, r := range results {
		if r == nil {
			continue
		}
		if len(hosts) > 0 {
			r.Hosts = hosts
		}
		for _, s := range perf.Series {
			if s.Entity == vms[i].MoRef || (s.EntityKind == vsphere.KindHost && s.Entity == hostOf[vms[i].MoRef]) {
				r.PlatformCounters = append(r.PlatformCounters, oltp.CounterSeries(s))
			}
		}
	}
	c.logf("recorded %d vSphere counter series over %s and the facts of %d host(s)", len(perf.Series), end.Sub(start).Round(time.Second), len(hosts))
}

// MissingCountersFile is where a campaign lists the vSphere counters it
// could not read (vsphere.MissingCounter), one a line with the hosts or
// VMs and the reason, in its results directory.
const MissingCountersFile = "vsphere-missing-counters.txt"

// missingCounters writes the counters not read into the results
// directory's MissingCountersFile and returns the one line the log gives
// them: how many, and where the list is. A simulator's (vcsim's) counters
// lack some as a rule; the list of every counter, VM and reason runs to
// thousands of characters, which a log line is no place for.
func (c *campaign) missingCounters(miss []vsphere.MissingCounter) string {
	var b strings.Builder
	b.WriteString("# vSphere counters not recorded over the measured window: counter on entities: reason\n")
	for _, m := range miss {
		b.WriteString(m.String() + "\n")
	}
	line := fmt.Sprintf("vSphere counters: %d not recorded on some hosts or VMs", len(miss))
	if c.vc.simHosts > 0 {
		line += ", as expected of the simulator (vcsim)"
	}
	if c.dir == "" {
		return line
	}
	if err := atomicfile.Write(filepath.Join(c.dir, MissingCountersFile), []byte(b.String())); err != nil {
		return line + fmt.Sprintf("; could not list them in %s: %v", MissingCountersFile, err)
	}
	return line + "; which, on what and why: " + MissingCountersFile + " in the results directory"
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
