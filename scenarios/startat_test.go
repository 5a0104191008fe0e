package scenarios

import (
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

func TestStartDelayDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		drv  vmDriver
		want time.Duration
	}{
		{"simulated, drivers in this process", Options{Simulate: true}, harnessDriver{}, StartDelayLocal},
		{"simulated, agents in the guests", Options{Simulate: true}, &guestDriver{}, StartDelayRemote},
		{"vSphere, harness over the network", Options{}, harnessDriver{}, StartDelayRemote},
		{"vSphere, agents", Options{}, &guestDriver{}, StartDelayRemote},
		{"set", Options{Simulate: true, StartDelay: 3 * time.Second}, harnessDriver{}, 3 * time.Second},
	} {
		c := &campaign{opts: tc.opts, env: newEnvironment(tc.opts), driver: tc.drv, spec: &spec.Campaign{VMs: spec.VMs{Count: 2}}}
		if got := c.startDelay(); got != tc.want {
			t.Errorf("%s: start delay %s, want %s", tc.name, got, tc.want)
		}
	}
	// In process, 125 ms a VM beyond 4 VMs: 16 VMs open their
	// connections on the harness's cores.
	c := &campaign{opts: Options{Simulate: true}, env: simulated{}, driver: harnessDriver{}, spec: &spec.Campaign{VMs: spec.VMs{Count: 16}}}
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
		drv     vmDriver
		results []*oltp.Result
		want    []string
	}{
		{"all on time", harnessDriver{}, []*oltp.Result{withPre(0, time.Minute), withPre(lateStartSlack, time.Minute), nil, {Start: at.Add(time.Millisecond)}}, nil},
		{"one late by its precondition", harnessDriver{}, []*oltp.Result{withPre(0, time.Minute), withPre(620*time.Millisecond, time.Minute), nil, nil},
			[]string{"sysbench-02 began 0.620 s after the common start"}},
		{"late without a precondition", harnessDriver{}, []*oltp.Result{nil, nil, nil, {Start: at.Add(1500 * time.Millisecond)}},
			[]string{"sysbench-04 began 1.500 s after the common start"}},
		{"guests get their clock offset too", &guestDriver{}, []*oltp.Result{withPre(lateStartSlack+spec.DefaultMaxClockOffset, time.Minute),
			withPre(lateStartSlack+spec.DefaultMaxClockOffset+time.Millisecond, time.Minute), nil, nil},
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

// The report names each VM whose first phase began well after the
// earliest VM's, from the Results alone, and says so among its warnings.
func TestStartSpreadInTheReport(t *testing.T) {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	vm := func(name string, pre, measure time.Duration) *oltp.Result {
		r := &oltp.Result{Start: at.Add(measure), Labels: map[string]string{"vm": name}}
		if pre >= 0 {
			r.Precondition = &oltp.Result{Start: at.Add(pre)}
		}
		return r
	}
	slack := lateStartSlack + spec.DefaultMaxClockOffset
	for _, tc := range []struct {
		name    string
		results []*oltp.Result
		want    string
	}{
		{"together", []*oltp.Result{vm("a", 0, time.Minute), vm("b", slack, time.Minute)}, ""},
		{"one late", []*oltp.Result{vm("a", 0, time.Minute), vm("b", 870*time.Millisecond, time.Minute), vm("c", 10*time.Millisecond, time.Minute)}, "b 0.870 s"},
		{"without preconditions", []*oltp.Result{vm("a", -1, 2*time.Second), vm("b", -1, 0)}, "a 2.000 s"},
	} {
		got := strings.Join(startSpread(tc.results), ", ")
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		rv := &Review{perVM: tc.results}
		warned := strings.Contains(strings.Join(rv.warnings(), "\n"), "Late start: "+tc.want+" after the earliest VM began")
		if warned != (tc.want != "") {
			t.Errorf("%s: warnings %q", tc.name, rv.warnings())
		}
	}
}
