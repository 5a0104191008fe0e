package vdbench

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/vdbench/blockio"
	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

// vmRecords runs blocktest.GridRun in two "VMs" (independent engines on
// fake devices of different service times) from one common start and
// returns their records.
func vmRecords(t *testing.T) []VMRecord {
	t.Helper()
	names := []string{"vm-a", "vm-b"}
	recs := make([]*RunRecord, len(names))
	synctest.Test(t, func(t *testing.T) {
		start := time.Now().Add(time.Second)
		done := make(chan struct{})
		for i := range names {
			go func() {
				defer func() { done <- struct{}{} }()
				dev := &blocktest.FakeDevice{Service: time.Millisecond + time.Duration(i)*700*time.Microsecond, Block: 512, Size: 1 << 30}
				opts := fakeOpts(map[string]*blocktest.FakeDevice{"sd1": dev})
				opts.StartAt = start
				cr, err := blockio.Execute(t.Context(), blocktest.GridRun(), opts)
				if err != nil {
					t.Error(err)
					return
				}
				if recs[i], err = NewRunRecord(blocktest.GridRun(), cr, nil); err != nil {
					t.Error(err)
				}
			}()
		}
		for range names {
			<-done
		}
	})
	var parts []VMRecord
	for i, vm := range names {
		parts = append(parts, VMRecord{VM: vm, Record: recs[i]})
	}
	if t.Failed() {
		t.FailNow()
	}
	return parts
}

// TestMergeVMRecords: each point merges the VMs' points exactly (I/O
// counts and IOPS add up, histograms merged), the spread brackets each
// VM, and the merged record round-trips through JSON into the writers.
func TestMergeVMRecords(t *testing.T) {
	parts := vmRecords(t)
	m, err := MergeVMRecords(parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 0 {
		t.Errorf("two VMs on one grid: warnings %q", m.Warnings)
	}
	if len(m.Points) != 3 || len(m.VMs) != 2 || len(m.Targets) != 2 || m.Targets[1] != "vm-b:fake0" {
		t.Fatalf("merged: %d points, VMs %v, targets %v", len(m.Points), m.VMs, m.Targets)
	}
	for i, p := range m.Points {
		var n int64
		var iops, req float64
		for _, vm := range parts {
			q := vm.Record.Points[i]
			n += q.Result.Ops[0].Latency.Count
			iops += q.Achieved
			req += q.Requested
			if q.Achieved < p.VMRange.IOPSMin || q.Achieved > p.VMRange.IOPSMax || q.Service.Mean < p.VMRange.MeanMin || q.Service.Mean > p.VMRange.MeanMax {
				t.Errorf("point %s: VM %s (%.1f IOPS, mean %s) outside the spread %+v", p.Label, vm.VM, q.Achieved, q.Service.Mean, p.VMRange)
			}
		}
		if got := p.Result.Ops[0].Latency.Count; got != n || n == 0 {
			t.Errorf("point %s: %d I/Os merged, the VMs %d", p.Label, got, n)
		}
		if p.Achieved != iops || p.Requested != req || p.VMRange.VMs != 2 || len(p.PerSD) != 2 || p.PerSD[1].Labels["vm"] != "vm-b" {
			t.Errorf("point %s: IOPS %.2f (sum %.2f), requested %.0f (sum %.0f), range %+v, per SD %d", p.Label, p.Achieved, iops, p.Requested, req, p.VMRange, len(p.PerSD))
		}
		if p.VMRange.MeanOfP95 < p.VMRange.MeanMin {
			t.Errorf("point %s: mean of p95s %s below the lowest mean %s", p.Label, p.VMRange.MeanOfP95, p.VMRange.MeanMin)
		}
	}
	if parts[0].Record.Points[1].Result.Flags["iorate"] == m.Points[1].Result.Flags["iorate"] {
		t.Errorf("merged 10%% point's iorate %s is one VM's, not the total", m.Points[1].Result.Flags["iorate"])
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := parseRunRecord("m.json", b)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := WriteCurve(&text, back.Curve()); err != nil || !strings.Contains(text.String(), "mean of VM p95s") {
		t.Errorf("curve of the merged record read back: %v\n%s", err, text.String())
	}
}

// TestMergeVMRecordsPartsAndRefusals: a point one VM lacks is merged
// over the others and flagged; windows that do not overlap are warned
// about; what cannot be merged is refused.
func TestMergeVMRecordsPartsAndRefusals(t *testing.T) {
	parts := vmRecords(t)
	short := *parts[1].Record
	short.Points = short.Points[:2]
	m, err := MergeVMRecords([]VMRecord{parts[0], {VM: "vm-b", Record: &short}})
	if err != nil {
		t.Fatal(err)
	}
	if last := m.Points[2]; last.VMRange.VMs != 1 || !strings.Contains(last.Flag, "measured on 1 of 2 VMs") {
		t.Errorf("point %s measured by one VM: range %+v, flag %q", last.Label, last.VMRange, last.Flag)
	}
	late := *parts[1].Record
	late.Points = append([]PointRecord(nil), late.Points...)
	r := *late.Points[0].Result
	r.Start, r.End = r.Start.Add(time.Hour), r.End.Add(time.Hour)
	late.Points[0].Result = &r
	m, err = MergeVMRecords([]VMRecord{parts[0], {VM: "vm-b", Record: &late}})
	if err != nil || !strings.Contains(strings.Join(m.Warnings, "\n"), "point max: the VMs' measured windows do not overlap") {
		t.Errorf("windows an hour apart: %v, warnings %q", err, m.Warnings)
	}
	other := *parts[1].Record
	other.Run = "other"
	params := *parts[1].Record
	params.Parameters = strings.Replace(params.Parameters, "threads=2", "threads=3", 1)
	for _, tc := range []struct {
		name  string
		parts []VMRecord
		want  string
	}{
		{"none", nil, "no VM records"},
		{"nil record", []VMRecord{parts[0], {VM: "vm-b"}}, `VM "vm-b" has no record`},
		{"same name", []VMRecord{parts[0], {VM: "vm-a", Record: parts[1].Record}}, `VM name "vm-a" is empty or given twice`},
		{"other run", []VMRecord{parts[0], {VM: "vm-b", Record: &other}}, "VM vm-b ran rd=other"},
		{"other parameters", []VMRecord{parts[0], {VM: "vm-b", Record: &params}}, "has other parameters"},
	} {
		if _, err := MergeVMRecords(tc.parts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// fakeOpts returns engine Options whose backends are the given devices,
// by SD name.
func fakeOpts(devs map[string]*blocktest.FakeDevice) blockio.Options {
	return blockio.Options{Backend: func(sd parmfile.SD) (blockio.Backend, error) {
		d, ok := devs[sd.Name]
		if !ok {
			return nil, fmt.Errorf("no fake device for sd=%s", sd.Name)
		}
		return d, nil
	}}
}
