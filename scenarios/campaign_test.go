package scenarios

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/vsphere"
)

// stubDriver stands in for a workload so that these tests exercise the
// orchestration alone: scenarios may not import the workloads (DESIGN.md),
// and the real sysbench path is tested end to end in cmd/vmbench. Its
// results are synthetic: each VM i runs 100*(i+1) events of 10 ms.
type stubDriver struct {
	failPrepareOn string        // VM whose prepare fails
	blockRun      chan struct{} // closed when every Run has started and blocks until ctx ends
	mu            sync.Mutex
	running       int
	vms           int
	dropped       []string
}

func (d *stubDriver) Check(workload string, args []string) error {
	if workload != "stub" {
		return fmt.Errorf("unknown workload %q (valid: stub)", workload)
	}
	return nil
}
func (d *stubDriver) CreateDatabase(ctx context.Context, db DB) error { return nil }
func (d *stubDriver) DropDatabase(ctx context.Context, db DB) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropped = append(d.dropped, db.SQLitePath)
	return nil
}
func (d *stubDriver) Prepare(ctx context.Context, workload string, args []string, db DB, w io.Writer) error {
	if strings.Contains(db.SQLitePath, d.failPrepareOn+".db") && d.failPrepareOn != "" {
		return errors.New("disk full")
	}
	fmt.Fprintf(w, "loaded %s\n", filepath.Base(db.SQLitePath))
	return nil
}
func (d *stubDriver) Run(ctx context.Context, workload string, args []string, db DB, hooks RunHooks) (*oltp.Result, error) {
	if d.blockRun != nil {
		d.mu.Lock()
		d.running++
		if d.running == d.vms {
			close(d.blockRun)
		}
		d.mu.Unlock()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	var n int
	fmt.Sscanf(strings.TrimPrefix(hooks.Labels["vm"], "sysbench-"), "%d", &n)
	lat := make([]int, 100*n)
	for i := range lat {
		lat[i] = 10
	}
	r := resultOf(hooks.StartAt, lat...)
	r.Labels = hooks.Labels
	return r, nil
}
func (d *stubDriver) Cleanup(ctx context.Context, workload string, args []string, db DB) error {
	return nil
}

func resultOf(start time.Time, latMs ...int) *oltp.Result {
	r := &oltp.Result{}
	*r = *newStubResult(start, latMs)
	return r
}

const stubSpec = `name: stub-campaign
vms: {role: sysbench, count: 4}
database: {driver: mysql}
workload: {tool: stub, name: stub, flags: {threads: 1}}
simulate: {vms: {count: 3}}
`

func startSim(t *testing.T) *vsphere.Simulator {
	t.Helper()
	sim, err := vsphere.StartSimulator(t.Context(), vsphere.SimOptions{Datastores: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return sim
}

// campaignVMs lists the VMs on the simulator that carry any campaign id.
func campaignVMs(t *testing.T, sim *vsphere.Simulator) []vsphere.VM {
	t.Helper()
	s, err := vsphere.Connect(context.Background(), sim.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	vms, err := s.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return vms
}

func runStub(t *testing.T, ctx context.Context, d *stubDriver, sim *vsphere.Simulator) (*Outcome, string, error) {
	t.Helper()
	spec, err := Parse("stub.yaml", []byte(stubSpec))
	if err != nil {
		t.Fatal(err)
	}
	d.vms = spec.Simulated().VMs.Count
	dir := t.TempDir()
	var log bytes.Buffer
	out, err := Run(ctx, spec, Options{Simulate: true, VSphere: sim.Config(), ResultsDir: dir, Drivers: map[string]Driver{"stub": d},
		Out: io.Discard, Log: &log, Getenv: func(string) string { return "" }, StartDelay: time.Millisecond})
	t.Log(log.String())
	return out, dir, err
}

func TestCampaignWritesResults(t *testing.T) {
	sim := startSim(t)
	d := &stubDriver{}
	out, dir, err := runStub(t, t.Context(), d, sim)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"campaign.yaml", "merged.json", "report.md", "vms/sysbench-01.json", "vms/sysbench-02.json", "vms/sysbench-03.json"} {
		if _, err := os.Stat(filepath.Join(out.Dir, f)); err != nil {
			t.Errorf("results lack %s: %v", f, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || strings.HasSuffix(entries[0].Name(), ".incomplete") {
		t.Errorf("results dir holds %v, want one finished campaign directory", entries)
	}
	// 100, 200 and 300 events of 10 ms over 10 s each.
	if out.Review.TPSSum != 60 || out.Review.TPSMin != 10 || out.Review.TPSMax != 30 {
		t.Errorf("TPS sum %g range %g-%g, want 60, 10-30", out.Review.TPSSum, out.Review.TPSMin, out.Review.TPSMax)
	}
	if vms := campaignVMs(t, sim); len(vms) != 0 {
		t.Errorf("%d VMs left after the campaign: %v", len(vms), vms)
	}
	if len(d.dropped) != 0 {
		t.Errorf("SQLite databases are removed with their temp dir, not dropped one by one: %v", d.dropped)
	}
}

func TestCampaignTearsDownOnFailure(t *testing.T) {
	sim := startSim(t)
	_, dir, err := runStub(t, t.Context(), &stubDriver{failPrepareOn: "sysbench-02"}, sim)
	if err == nil || !strings.Contains(err.Error(), "prepare on sysbench-02: disk full") {
		t.Fatalf("err = %v, want the failing VM's prepare error", err)
	}
	if vms := campaignVMs(t, sim); len(vms) != 0 {
		t.Errorf("%d VMs left after a failed campaign", len(vms))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a campaign that failed before measuring anything left %v", entries)
	}
}

func TestCampaignTearsDownOnCancel(t *testing.T) {
	sim := startSim(t)
	ctx, cancel := context.WithCancel(t.Context())
	d := &stubDriver{blockRun: make(chan struct{})}
	go func() {
		<-d.blockRun // every VM is running
		cancel()
	}()
	_, _, err := runStub(t, ctx, d, sim)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if vms := campaignVMs(t, sim); len(vms) != 0 {
		t.Errorf("%d VMs left after Ctrl-C", len(vms))
	}
}

func TestCheckRefusesBadWorkloadBeforeAnything(t *testing.T) {
	spec, err := Parse("stub.yaml", []byte(strings.Replace(stubSpec, "name: stub, flags", "name: nope, flags", 1)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = Run(t.Context(), spec, Options{Simulate: true, ResultsDir: dir, Drivers: map[string]Driver{"stub": &stubDriver{}},
		Out: io.Discard, Log: io.Discard, Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), `unknown workload "nope"`) {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused campaign created %v", entries)
	}
}
