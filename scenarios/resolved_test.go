package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/internal/golden"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
	"vmbench/workload"

	// The real tools that fakeTool wraps.
	_ "vmbench/sysbench"
	_ "vmbench/tpcc"
)

// fakeTool is a real tool (sysbench, tpcc) whose flags are parsed and
// recorded as the real one's, but whose databases, prepare and run are
// synthetic, for tests of the campaign's records alone. It is registered
// as "fake-" + the real name.
type fakeTool struct{ real workload.Tool }

func init() {
	for _, name := range []string{"sysbench", "tpcc"} {
		t, err := workload.Lookup(name)
		if err != nil {
			panic(err)
		}
		workload.Register(fakeTool{t})
	}
}

func (f fakeTool) Describe() workload.Descriptor {
	d := f.real.Describe()
	d.Name = "fake-" + d.Name
	return d
}
func (f fakeTool) NewConfig() workload.Config { return &fakeConfig{Config: f.real.NewConfig()} }

type fakeConfig struct{ workload.Config }

func (c *fakeConfig) conn() workload.Connector                    { return c.Config.(workload.Connector) }
func (c *fakeConfig) Database() dialect.Config                    { return c.conn().Database() }
func (c *fakeConfig) SetDatabase(db dialect.Config)               { c.conn().SetDatabase(db) }
func (c *fakeConfig) ConnectionFlags() []string                   { return c.conn().ConnectionFlags() }
func (c *fakeConfig) Supports(d dialect.Driver) error             { return c.conn().Supports(d) }
func (c *fakeConfig) Clone() workload.Config                      { return &fakeConfig{Config: c.conn().Clone()} }
func (c *fakeConfig) Prepare(context.Context, workload.Env) error { return nil }
func (c *fakeConfig) Cleanup(context.Context, workload.Env) error { return nil }
func (c *fakeConfig) Run(_ context.Context, env workload.Env) (*workload.Output, error) {
	r := resultOf(env.StartAt, 10, 10, 10)
	r.Labels = env.Labels
	return &workload.Output{Result: r}, nil
}

// body is a campaign.yaml without its comment lines (campaign id, time).
func body(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "#") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// runResolved runs cf in simulation on the vSphere of cfg and returns
// the campaign.yaml it wrote.
func runResolved(t *testing.T, cf *spec.Campaign, cfg vsphere.Config, server *dialect.Config) string {
	t.Helper()
	log := &tsWriter{t0: time.Now()}
	out, err := checkAndRun(t.Context(), cf, Options{Simulate: true, Driver: spec.DriverHarness, VSphere: cfg, DBServer: server, ResultsDir: t.TempDir(),
		Out: io.Discard, Log: log,
		Getenv: func(string) string { return "" }, StartDelay: time.Millisecond})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.b.String())
	}
	return filepath.Join(out.Dir, "campaign.yaml")
}

// serverOf reads a simulate.db-server DSN back into the server it names.
func serverOf(t *testing.T, dsn string) *dialect.Config {
	t.Helper()
	cfg, err := dialect.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return &cfg
}

// A results directory's campaign.yaml is what ran: placement given by
// flags (datacenter, pool, folder, network, datastores), the simulated
// sizes and the database server are recorded, and the file reloads and
// runs the same campaign again. Under -race the main job's campaign
// file; TestResolvedEveryCampaignFileNoRace runs them all.
func TestResolvedCampaignReloadsAndRerunsTheSame(t *testing.T) {
	resolvedReruns(t, []string{"sysbench-8vm.yaml"})
}

// TestResolvedEveryCampaignFileNoRace is TestResolvedCampaignReloadsAndRerunsTheSame
// for every campaign file of this directory.
func TestResolvedEveryCampaignFileNoRace(t *testing.T) {
	golden.SkipUnderRace(t, "vcsim under the race detector takes minutes for all the campaign files (16 VMs twice)")
	files, _ := filepath.Glob("*.yaml")
	resolvedReruns(t, files)
}

// resolvedReruns runs each VM campaign file (the block suite's are left
// out) twice in simulation, the second time from the campaign.yaml of
// the first, and compares what the two recorded.
func resolvedReruns(t *testing.T, files []string) {
	sim, err := vsphere.StartSimulator(t.Context(), vsphere.SimOptions{Datastores: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	s, err := vsphere.Connect(t.Context(), sim.Config())
	if err != nil {
		t.Fatal(err)
	}
	folders, err := s.Datacenter.Folders(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := folders.VmFolder.CreateFolder(t.Context(), "bench"); err != nil {
		t.Fatal(err)
	}
	s.Close(t.Context())
	flags := vsphere.Config{URL: sim.Config().URL, Insecure: true, Datacenter: "DC0", ResourcePool: "DC0_C0/Resources",
		Folder: "bench", Network: "VM Network", Datastore: "LocalDS_1,LocalDS_0,LocalDS_3,LocalDS_2", Template: vsphere.SimTemplate}
	server := &dialect.Config{Driver: dialect.MySQL, Host: "127.0.0.1", Port: 3306, User: "root", Password: "not-recorded"}
	for _, file := range files {
		if b, _ := os.ReadFile(file); strings.Contains(string(b), "\nkind:") {
			continue // the block suite has its own loader
		}
		t.Run(file, func(t *testing.T) {
			cf, err := spec.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			cf.Workload.Tool = "fake-" + cf.Workload.Tool
			first := runResolved(t, cf, flags, server)
			got := body(t, first)
			for _, want := range []string{"datacenter: /DC0", "resource-pool: /DC0/host/DC0_C0/Resources", "folder: /DC0/vm/bench",
				"network: VM Network", "- LocalDS_1\n        - LocalDS_0\n", "template: " + vsphere.SimTemplate,
				"db-server: mysql://root@127.0.0.1:3306/", "count: " + strconv.Itoa(cf.Simulated().VMs.Count),
				"driver: " + cf.Database.Driver} {
				if !strings.Contains(got, want) {
					t.Errorf("campaign.yaml lacks %q:\n%s", want, got)
				}
			}
			if strings.Contains(got, "not-recorded") {
				t.Errorf("campaign.yaml holds the database password")
			}
			again, err := spec.Load(first)
			if err != nil {
				t.Fatalf("campaign.yaml does not load: %v", err)
			}
			// What it records is the simulated workload as parsed.
			ran, err := Check(cf, Options{Simulate: true})
			if err != nil {
				t.Fatal(err)
			}
			reloaded, err := Check(again, Options{Simulate: true})
			if err != nil {
				t.Fatalf("campaign.yaml does not check: %v", err)
			}
			if got, want := workload.RecordedFlags(reloaded.Config()), workload.RecordedFlags(ran.Config()); !maps.Equal(got, want) {
				t.Errorf("reloaded flags %v, want the simulated ones as parsed %v", got, want)
			}
			// The rerun gets the vSphere URL alone: the placement comes from the file.
			second := runResolved(t, again, vsphere.Config{URL: flags.URL, Insecure: true}, serverOf(t, again.Simulate.DBServer))
			if b := body(t, second); b != got {
				t.Errorf("the rerun resolved differently:\nfirst:\n%s\nrerun:\n%s", got, b)
			}
		})
	}
}

type tsWriter struct {
	t0 time.Time
	b  bytes.Buffer
}

func (w *tsWriter) Write(p []byte) (int, error) {
	fmt.Fprintf(&w.b, "%6.3f %s", time.Since(w.t0).Seconds(), p)
	return len(p), nil
}
