package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/internal/golden"
	"vmbench/scenarios/spec"
)

// simulatedServer returns sysbench-16vm.yaml with its simulate: block
// shaping the server (datastore size, host cores and memory).
func simulatedServer(t *testing.T, shape string) *spec.Campaign {
	t.Helper()
	b, err := os.ReadFile("sysbench-16vm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "\nsimulate:\n", "\nsimulate:\n"+shape, 1)
	if text == string(b) {
		t.Fatal("sysbench-16vm.yaml has no simulate: block")
	}
	cf, err := spec.Parse("sysbench-16vm.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return cf
}

// TestPlanRefusesWhatDoesNotFit: 16 sysbench VMs, two per 1,500 GB
// datastore, need 1,554 GB each (2 x 717 GB thick + 2 x 60 GB swap): the
// plan does not fit, each datastore is short, the problems say by how
// much, and nothing is created (no results directory).
func TestPlanRefusesWhatDoesNotFit(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	cf := simulatedServer(t, "  datastore-gb: 1500\n  host-cores: 32\n  host-memory-gb: 768\n")
	p, err := checkAndPlan(cf, Options{Simulate: true, ResultsDir: results, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Fits || p.Preflight.OK() || len(p.Preflight.Datastores) != 8 {
		t.Fatalf("plan fits: %+v", p)
	}
	for _, d := range p.Preflight.Datastores {
		if d.VMs != 2 || d.NeededGB() != 1554 || d.CapacityGB != 1500 {
			t.Errorf("%+v", d)
		}
	}
	var text bytes.Buffer
	if err := p.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "plan-short.txt.golden"), text.Bytes())
	for _, want := range []string{"short by 54 GB", "problem: datastore LocalDS_1 has 1500 GB free but its 2 VMs need 1554 GB",
		"verdict: the campaign does not fit (8 problem(s)); nothing was created", "memory overcommit: 960 GB of VM memory on 768 GB"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, text.String())
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back CampaignPlan
	if err := json.Unmarshal(b, &back); err != nil || back.Fits || len(back.Preflight.Problems) != 8 || back.Preflight.Datastores[1].ReservedGB != 1434 {
		t.Errorf("JSON round trip: %v %+v", err, back.Preflight)
	}
	if _, err := os.Stat(results); !os.IsNotExist(err) {
		t.Errorf("plan created %s: %v", results, err)
	}
}

// TestPlanPerHost: with vms.hosts and full reservations the plan counts
// each host's VMs and refuses reservations beyond a host's memory.
func TestPlanPerHost(t *testing.T) {
	cf := simulatedServer(t, "  host-memory-gb: 256\n")
	cf.VMs.Hosts = []string{"esx01", "esx02"}
	cf.VMs.MemoryReservation = spec.ReserveFull
	p, err := checkAndPlan(cf, Options{Simulate: true, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Fits || len(p.Preflight.Hosts) != 2 || len(p.Hosts) != 2 {
		t.Fatalf("%+v", p)
	}
	for _, h := range p.Preflight.Hosts {
		if !h.Planned || h.VMs != 8 || h.ReservedMB != 8*61440 {
			t.Errorf("%+v", h)
		}
	}
	mustMention(t, p.Preflight.Problems, "its 8 VMs reserve 480 GB of memory but it has 256 GB")
	for _, d := range p.Preflight.Datastores {
		if d.SwapGB != 0 {
			t.Errorf("%s: swap %d GB with full reservations", d.Name, d.SwapGB)
		}
	}
}

func mustMention(t *testing.T, lines []string, want string) {
	t.Helper()
	for _, l := range lines {
		if strings.Contains(l, want) {
			return
		}
	}
	t.Errorf("none of %q mentions %q", lines, want)
}

// checkAndPlan checks cf with opts (Check) and plans it (PlanCampaign).
func checkAndPlan(cf *spec.Campaign, opts Options) (*CampaignPlan, error) {
	k, err := Check(cf, opts)
	if err != nil {
		return nil, err
	}
	return PlanCampaign(context.Background(), k)
}
