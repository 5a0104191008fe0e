package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/scenarios/review"
	"vmbench/vsphere"
)

// TestRecordPlatform: after a run, each VM's Result carries its own
// vSphere counter series and its host's (not the other VM's), every
// host's facts, and the review lines name the host's CPU usage and the worst CPU ready.
func TestRecordPlatform(t *testing.T) {
	ctx := context.Background()
	sess, _, err := vsphere.StartSimulatedSession(ctx, vsphere.SimOptions{Datastores: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sess.Close(ctx) }()
	l, _ := vsphere.LayoutFor("sqlserver")
	vms, err := sess.Provision(ctx, vsphere.ProvisionSpec{CampaignID: "platform-test", Layout: l, Count: 2, Template: vsphere.SimTemplate,
		Datastores: sess.Config().Datastores(), PowerOn: true, SimulatedIP: vsphere.SimulatedIP, IPTimeout: 10 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	results := make([]*oltp.Result, len(vms))
	for i := range results {
		results[i] = &oltp.Result{Start: start.Add(time.Duration(i) * time.Second), End: start.Add(120 * time.Second)}
	}
	var log strings.Builder
	c := &campaign{vc: vcState{sess: sess}, log: &log, dir: t.TempDir()}
	c.recordPlatform(ctx, vms, results)
	checkMissingCounters(t, c.dir, log.String())
	host := vms[0].Host
	for i, r := range results {
		var own, hostCPU int
		for _, s := range r.PlatformCounters {
			switch {
			case s.Entity == vms[i].MoRef:
				own++
			case s.EntityKind == vsphere.KindHost && s.EntityName == host:
				if s.Counter == vsphere.CounterCPUUsage {
					hostCPU++
				}
			default:
				t.Errorf("%s's Result carries %s's %s", vms[i].Name, s.EntityName, s.Counter)
			}
			if len(s.Values) != 6 || s.Interval != 20*time.Second { // (0,20] .. (100,120]
				t.Errorf("%s %s: %d samples of %s in a 120 s window", s.EntityName, s.Counter, len(s.Values), s.Interval)
			}
		}
		if own == 0 || hostCPU != 1 || r.Hosts[host]["cores"] == "" {
			t.Errorf("%s: %d own series, %d host CPU series, hosts %v\nlog:\n%s", vms[i].Name, own, hostCPU, r.Hosts, log.String())
		}
	}
	lines := review.PlatformLines(results[0])
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "host "+host+": ") || !strings.Contains(lines[0], "VMware ESXi") || !strings.Contains(lines[0], "GiB") {
		t.Errorf("first line is not the host's facts: %q", lines)
	}
	if len(lines) == 0 || !strings.Contains(strings.Join(lines, "\n"), "host "+host+" CPU usage: mean") || !strings.Contains(lines[len(lines)-1], "worst CPU ready:") {
		t.Errorf("review lines: %q", lines)
	}
}

// checkMissingCounters: the counters vcsim lacks (it offers no virtual
// disk counter at the 20 s interval) take one short line of the log, and
// their list, each counter with its entities and reason, is in the
// results directory.
func checkMissingCounters(t *testing.T, dir, log string) {
	t.Helper()
	var line string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "vSphere counters") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("the log says nothing of the counters vcsim lacks:\n%s", log)
	}
	if len(line) > 200 || !strings.Contains(line, MissingCountersFile) {
		t.Errorf("the log line of the counters not recorded is %d characters, want at most 200 naming %s:\n%s", len(line), MissingCountersFile, line)
	}
	b, err := os.ReadFile(filepath.Join(dir, MissingCountersFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), vsphere.CounterVDiskReadLatency+" on vm ") || !strings.Contains(string(b), vsphere.ReasonUnavailable) {
		t.Errorf("%s lacks the virtual disk counters vcsim does not offer:\n%s", MissingCountersFile, b)
	}
}

// TestPlatformLinesReadVSpheresCounters: the review, which imports no
// vSphere, reads the counters the campaign records under vSphere's names
// (vsphere.Counter*, KindHost): each it sums up gives its line, with the
// mean and peak of vSphere's own summary of the series.
func TestPlatformLinesReadVSpheresCounters(t *testing.T) {
	series := func(kind, name, counter string, values ...float64) oltp.CounterSeries {
		return oltp.CounterSeries{EntityKind: kind, EntityName: name, Counter: counter, InstanceName: "ds1", Interval: 20 * time.Second, Values: values}
	}
	r := &oltp.Result{PlatformCounters: []oltp.CounterSeries{
		series(vsphere.KindHost, "esx01", vsphere.CounterCPUUsage, 10, 35),
		series(vsphere.KindHost, "esx01", vsphere.CounterMemUsage, 40, 50),
		series(vsphere.KindHost, "esx01", vsphere.CounterMemBalloon, 1024, 3072),
		series(vsphere.KindVM, "vm-1", vsphere.CounterCPUReady, 1, 2.5),
		series(vsphere.KindHost, "esx01", vsphere.CounterDatastoreReadLatency, 0.5, 1.5),
		series(vsphere.KindHost, "esx01", vsphere.CounterDatastoreWriteLatency, 0.25, 0.75),
	}}
	cpu := vsphere.CounterSeries(r.PlatformCounters[0]).Summary()
	lines := strings.Join(review.PlatformLines(r), "\n")
	for _, want := range []string{
		fmt.Sprintf("host esx01 CPU usage: mean %.1f%%, peak %.1f%% (2 sample(s) of 20s)", cpu.Mean, cpu.Max),
		"host esx01 memory usage: mean 45.0%, peak 50.0%", "host esx01 ballooned memory: mean 2 MB, peak 3 MB",
		"datastore ds1 readlatency on host esx01: mean 1.00 ms, peak 1.50 ms", "datastore ds1 writelatency on host esx01: mean 0.50 ms, peak 0.75 ms",
		"worst CPU ready: 2.50% per vCPU (vm-1)",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("the platform lines lack %q:\n%s", want, lines)
		}
	}
}
