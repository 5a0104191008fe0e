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
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
	"vmbench/workload"
)

// stubTool stands in for a workload so that these tests exercise the
// orchestration alone: registered as tool "stub" (workload "stub", one
// option, threads), it does what the running test's stubDriver says. Its
// results are synthetic: each VM i runs 100*(i+1) events of 10 ms.
type stubTool struct{}

// stubNow is the stubDriver of the running test (these tests do not run
// in parallel).
var stubNow atomic.Pointer[stubDriver]

func init() { workload.Register(stubTool{}) }

func (stubTool) Describe() workload.Descriptor {
	return workload.Descriptor{Name: "stub", Workloads: []string{"stub"}}
}
func (stubTool) NewConfig() workload.Config { return &stubConfig{d: stubNow.Load(), threads: 1} }

type stubDriver struct {
	failPrepareOn string        // VM whose prepare fails
	failCheckOn   string        // VM whose consistency checks fail
	blockRun      chan struct{} // closed when every Run has started and blocks until ctx ends
	// inPrecondition, with blockRun, makes each Run return, when ctx
	// ends, the partial Result of a precondition cut short; inMeasure
	// the partial Result of a measure phase cut short.
	inPrecondition, inMeasure bool
	// blockCampaign, with blockRun, blocks only the Runs of the campaign
	// whose id begins with it (all when "").
	blockCampaign string
	// markLoaded makes Prepare write "loaded" into the VM's SQLite file.
	markLoaded bool
	mu         sync.Mutex
	running    int
	vms        int
	dropped    []string
}

// stubConfig is the stub's Config on one database.
type stubConfig struct {
	d       *stubDriver
	threads int
	db      dialect.Config
}

func (c *stubConfig) BindFlags(fs *pflag.FlagSet) {
	fs.IntVar(&c.threads, "threads", c.threads, "threads")
}
func (c *stubConfig) Complete(name string, _ func(string) string, _ func(string) bool) error {
	if name != "stub" {
		return fmt.Errorf("unknown workload %q (valid: stub)", name)
	}
	return nil
}
func (c *stubConfig) Validate() error        { return nil }
func (c *stubConfig) Bounds() oltp.RunConfig { return oltp.RunConfig{Time: 10 * time.Second} }
func (c *stubConfig) Flags() map[string]string {
	return map[string]string{"threads": fmt.Sprint(c.threads)}
}
func (c *stubConfig) Database() dialect.Config             { return c.db }
func (c *stubConfig) SetDatabase(db dialect.Config)        { c.db = db }
func (c *stubConfig) ConnectionFlags() []string            { return []string{"db"} }
func (c *stubConfig) Supports(dialect.Driver) error        { return nil }
func (c *stubConfig) Clone() workload.Config               { cp := *c; return &cp }
func (c *stubConfig) CreateDatabase(context.Context) error { return nil }
func (c *stubConfig) DropDatabase(context.Context) error {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	c.d.dropped = append(c.d.dropped, c.db.SQLitePath)
	return nil
}
func (c *stubConfig) Prepare(_ context.Context, env workload.Env) error {
	if c.d.failPrepareOn != "" && strings.Contains(c.db.SQLitePath, c.d.failPrepareOn+".db") {
		return errors.New("disk full")
	}
	if c.d.markLoaded {
		if err := os.WriteFile(c.db.SQLitePath, []byte("loaded\n"), 0o644); err != nil {
			return err
		}
	}
	env.Logf("loaded %s", filepath.Base(c.db.SQLitePath))
	return nil
}
func (c *stubConfig) Check(_ context.Context, env workload.Env) error {
	if c.d.failCheckOn != "" && strings.Contains(c.db.SQLitePath, c.d.failCheckOn+".db") {
		env.Logf("stub: 3 rows missing")
		return errors.New("a consistency check failed: 3 rows missing")
	}
	env.Logf("stub: all rows there")
	return nil
}
func (c *stubConfig) Run(ctx context.Context, env workload.Env) (*workload.Output, error) {
	d := c.d
	if d.blockRun != nil && strings.HasPrefix(env.Labels["campaign"], d.blockCampaign) {
		d.mu.Lock()
		d.running++
		if d.running == d.vms {
			close(d.blockRun)
		}
		d.mu.Unlock()
		<-ctx.Done()
		if d.inPrecondition {
			r := resultOf(env.StartAt, 10, 10)
			r.Phase, r.Status, r.Interrupted, r.Labels = oltp.PhasePrecondition, oltp.StatusInterrupted, true, env.Labels
			return &workload.Output{Result: r}, ctx.Err()
		}
		if d.inMeasure {
			r := resultOf(env.StartAt, 10, 10)
			r.Status, r.Interrupted, r.Labels = oltp.StatusInterrupted, true, env.Labels
			return &workload.Output{Result: r}, ctx.Err()
		}
		return nil, ctx.Err()
	}
	var n int
	if _, err := fmt.Sscanf(strings.TrimPrefix(env.Labels["vm"], "sysbench-"), "%d", &n); err != nil {
		return nil, fmt.Errorf("stub: VM label %q: %w", env.Labels["vm"], err)
	}
	lat := make([]int, 100*n)
	for i := range lat {
		lat[i] = 10
	}
	r := resultOf(env.StartAt, lat...)
	r.Labels = env.Labels
	return &workload.Output{Result: r}, nil
}
func (c *stubConfig) Cleanup(context.Context, workload.Env) error { return nil }

// newStubResult is a 10 s measure-phase Result with one op of the given
// latencies (ms), starting at start.
func newStubResult(start time.Time, latMs []int) *oltp.Result {
	h := hist.New()
	for _, l := range latMs {
		h.Record(time.Duration(l) * time.Millisecond)
	}
	return &oltp.Result{Version: oltp.ResultVersion, Workload: "stub", Flags: map[string]string{"threads": "1"},
		Phase: oltp.PhaseMeasure, Loop: oltp.ClosedLoop, Measured: "stub", Threads: 1,
		Start: start, End: start.Add(10 * time.Second), Elapsed: 10 * time.Second, Parts: 1,
		Ops: []oltp.OpResult{{Name: "event", Latency: h.Snapshot()}}}
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
	out, dir, _, err := runStubSpec(t, ctx, d, sim, stubSpec)
	return out, dir, err
}

// runStubSpec runs the stub campaign file text in simulation on sim and
// returns its outcome, the results' parent directory and the log.
func runStubSpec(t *testing.T, ctx context.Context, d *stubDriver, sim *vsphere.Simulator, text string) (*Outcome, string, string, error) {
	t.Helper()
	cf, err := spec.Parse("stub.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	d.vms = cf.Simulated().VMs.Count
	stubNow.Store(d)
	dir := t.TempDir()
	var log bytes.Buffer
	out, err := checkAndRun(ctx, cf, Options{Simulate: true, VSphere: sim.Config(), ResultsDir: dir,
		Out: io.Discard, Log: &log, Getenv: func(string) string { return "" }, StartDelay: time.Millisecond})
	t.Log(log.String())
	return out, dir, log.String(), err
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
	cf, err := spec.Parse("stub.yaml", []byte(strings.Replace(stubSpec, "name: stub, flags", "name: nope, flags", 1)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stubNow.Store(&stubDriver{})
	_, err = checkAndRun(t.Context(), cf, Options{Simulate: true, ResultsDir: dir,
		Out: io.Discard, Log: io.Discard, Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), `unknown workload "nope"`) {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused campaign created %v", entries)
	}
}

// checkAndRun checks cf with opts (Check) and runs it (Run), as campaign
// run does; a refused campaign's error is Check's.
func checkAndRun(ctx context.Context, cf *spec.Campaign, opts Options) (*Outcome, error) {
	k, err := Check(cf, opts)
	if err != nil {
		return nil, err
	}
	return Run(ctx, k)
}
