package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/vsphere"
)

// anyDriver accepts every workload name and flag set, as a stand-in for
// sysbench and tpcc when only the campaign's records are under test.
type anyDriver struct{ stubDriver }

func (d *anyDriver) Check(string, []string) error { return nil }
func (d *anyDriver) Run(ctx context.Context, workload string, args []string, db DB, hooks RunHooks) (*oltp.Result, error) {
	r := resultOf(hooks.StartAt, 10, 10, 10)
	r.Labels = hooks.Labels
	return r, nil
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

// runResolved runs spec in simulation on the vSphere of cfg and returns
// the campaign.yaml it wrote.
func runResolved(t *testing.T, spec *Spec, cfg vsphere.Config, server *DB) string {
	t.Helper()
	d := &anyDriver{}
	log := &tsWriter{t0: time.Now()}
	out, err := Run(t.Context(), spec, Options{Simulate: true, VSphere: cfg, DBServer: server, ResultsDir: t.TempDir(),
		Drivers: map[string]Driver{"sysbench": d, "tpcc": d}, Out: io.Discard, Log: log,
		Getenv: func(string) string { return "" }, StartDelay: time.Millisecond})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.b.String())
	}
	return filepath.Join(out.Dir, "campaign.yaml")
}

// serverOf reads a simulate.db-server DSN back into the DB it names.
func serverOf(t *testing.T, dsn string) *DB {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	return &DB{Driver: u.Scheme, Host: u.Hostname(), Port: port, User: u.User.Username()}
}

// A results directory's campaign.yaml is what ran: placement given by
// flags (datacenter, pool, folder, network, datastores), the simulated
// sizes and the database server are recorded, and the file reloads and
// runs the same campaign again.
func TestResolvedCampaignReloadsAndRerunsTheSame(t *testing.T) {
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
	server := &DB{Driver: "mysql", Host: "127.0.0.1", Port: 3306, User: "root", Password: "not-recorded"}
	files, _ := filepath.Glob("*.yaml")
	for _, file := range files {
		if b, _ := os.ReadFile(file); strings.Contains(string(b), "\nkind:") {
			continue // the block suite has its own loader
		}
		t.Run(file, func(t *testing.T) {
			spec, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			first := runResolved(t, spec, flags, server)
			got := body(t, first)
			for _, want := range []string{"datacenter: /DC0", "resource-pool: /DC0/host/DC0_C0/Resources", "folder: /DC0/vm/bench",
				"network: VM Network", "- LocalDS_1\n        - LocalDS_0\n", "template: " + vsphere.SimTemplate,
				"db-server: mysql://root@127.0.0.1:3306/", "count: " + strconv.Itoa(spec.Simulated().VMs.Count),
				"driver: " + spec.Database.Driver} {
				if !strings.Contains(got, want) {
					t.Errorf("campaign.yaml lacks %q:\n%s", want, got)
				}
			}
			if strings.Contains(got, "not-recorded") {
				t.Errorf("campaign.yaml holds the database password")
			}
			again, err := Load(first)
			if err != nil {
				t.Fatalf("campaign.yaml does not load: %v", err)
			}
			if sim := spec.Simulated(); !equalFlags(again.Workload.Flags, sim.Workload.Flags) {
				t.Errorf("reloaded flags %v, want the simulated ones %v", again.Workload.Flags, sim.Workload.Flags)
			}
			// The rerun gets the vSphere URL alone: the placement comes from the file.
			second := runResolved(t, again, vsphere.Config{URL: flags.URL, Insecure: true}, serverOf(t, again.Simulate.DBServer))
			if b := body(t, second); b != got {
				t.Errorf("the rerun resolved differently:\nfirst:\n%s\nrerun:\n%s", got, b)
			}
		})
	}
}

func equalFlags(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || fmt.Sprint(v) != fmt.Sprint(w) {
			return false
		}
	}
	return true
}

type tsWriter struct {
	t0 time.Time
	b  bytes.Buffer
}

func (w *tsWriter) Write(p []byte) (int, error) {
	fmt.Fprintf(&w.b, "%6.3f %s", time.Since(w.t0).Seconds(), p)
	return len(p), nil
}
