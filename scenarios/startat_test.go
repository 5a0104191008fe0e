package scenarios

import (
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/scenarios/review"
	"vmbench/scenarios/spec"
	"vmbench/scenarios/vmdriver"
	"vmbench/vsphere"
)

func TestStartDelayDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		drv  vmdriver.Driver
		want time.Duration
	}{
		{"simulated, drivers in this process", Options{Simulate: true}, vmdriver.Harness{}, StartDelayLocal},
		{"simulated, agents in the guests", Options{Simulate: true}, &vmdriver.Guest{}, StartDelayRemote},
		{"vSphere, harness over the network", Options{}, vmdriver.Harness{}, StartDelayRemote},
		{"vSphere, agents", Options{}, &vmdriver.Guest{}, StartDelayRemote},
		{"set", Options{Simulate: true, StartDelay: 3 * time.Second}, vmdriver.Harness{}, 3 * time.Second},
	} {
		c := &campaign{opts: tc.opts, env: newEnvironment(tc.opts), driver: tc.drv, spec: &spec.Campaign{VMs: spec.VMs{Count: 2}}}
		if got := c.startDelay(); got != tc.want {
			t.Errorf("%s: start delay %s, want %s", tc.name, got, tc.want)
		}
	}
	// In process, 125 ms a VM beyond 4 VMs: 16 VMs open their
	// connections on the harness's cores.
	c := &campaign{opts: Options{Simulate: true}, env: simulated{}, driver: vmdriver.Harness{}, spec: &spec.Campaign{VMs: spec.VMs{Count: 16}}}
	if got := c.startDelay(); got != 2*time.Second {
		t.Errorf("16 VMs in process: start delay %s, want 2s", got)
	}
}

// A VM whose first phase began more than the slack after the common start
// is named with how late it was; the precondition's start counts, not
// the measure phase's; a VM without a Result is not.
func TestLateStarts(t *testing.T) {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	withPre := func(pre, measure time.Duration) *oltp.Result {
		return &oltp.Result{Start: at.Add(measure), Precondition: &oltp.Result{Start: at.Add(pre)}}
	}
	vms := []vsphere.VM{{Name: "sysbench-01"}, {Name: "sysbench-02"}, {Name: "sysbench-03"}, {Name: "sysbench-04"}}
	for _, tc := range []struct {
		name    string
		drv     vmdriver.Driver
		results []*oltp.Result
		want    []string
	}{
		{"all on time", vmdriver.Harness{}, []*oltp.Result{withPre(0, time.Minute), withPre(review.LateStartSlack, time.Minute), nil, {Start: at.Add(time.Millisecond)}}, nil},
		{"one late by its precondition", vmdriver.Harness{}, []*oltp.Result{withPre(0, time.Minute), withPre(620*time.Millisecond, time.Minute), nil, nil},
			[]string{"sysbench-02 began 0.620 s after the common start"}},
		{"late without a precondition", vmdriver.Harness{}, []*oltp.Result{nil, nil, nil, {Start: at.Add(1500 * time.Millisecond)}},
			[]string{"sysbench-04 began 1.500 s after the common start"}},
		{"guests get their clock offset too", &vmdriver.Guest{}, []*oltp.Result{withPre(review.LateStartSlack+spec.DefaultMaxClockOffset, time.Minute),
			withPre(review.LateStartSlack+spec.DefaultMaxClockOffset+time.Millisecond, time.Minute), nil, nil},
			[]string{"sysbench-02 began 0.151 s after the common start"}},
	} {
		var log strings.Builder
		c := &campaign{opts: Options{Simulate: true}, env: simulated{}, driver: tc.drv, spec: &spec.Campaign{}, log: &syncWriter{w: &log}}
		got := c.lateStarts(at, vms, tc.results)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if logged := log.String(); (len(tc.want) > 0) != strings.Contains(logged, "warning:") {
			t.Errorf("%s: logged %q", tc.name, logged)
		}
	}
}
