package vsphere

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vmware/govmomi/find"
)

// TestPreflightFailsAndCreatesNothing: each missing or insufficient piece
// is named (with what exists), and Provision then creates nothing.
func TestPreflightFailsAndCreatesNothing(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 2, DatastoreGB: 1500})
	ctx := context.Background()
	before := allVMNames(t, s)
	cases := []struct {
		name   string
		modify func(*ProvisionSpec)
		want   []string
	}{
		{"missing datastore", func(p *ProvisionSpec) { p.Datastores = []string{"LocalDS_0", "nvme9"} },
			[]string{"nvme9 not found", "available: LocalDS_0, LocalDS_1"}},
		{"missing template", func(p *ProvisionSpec) { p.Template = "centos63" },
			[]string{`template (--template) "centos63" not found`, "available: " + SimTemplate}},
		{"missing pool", func(p *ProvisionSpec) { p.ResourcePool = "DC0_C0/Resources/bench" },
			[]string{`"DC0_C0/Resources/bench" not found`, "available: DC0_C0/Resources"}},
		{"missing folder", func(p *ProvisionSpec) { p.Folder = "bench" }, []string{`folder (--folder / GOVC_FOLDER) "bench" not found`}},
		{"missing network", func(p *ProvisionSpec) { p.Network = "10G-bench" }, []string{`"10G-bench" not found`, "VM Network"}},
		{"not enough space", func(p *ProvisionSpec) { p.Count = 4 }, // 2 sysbench VMs need 1,554 GB of 1,500
			[]string{"datastore LocalDS_0 has", "need 1554 GB (thick disks 1434 GB + swap 120 GB)"}},
	}
	for _, c := range cases {
		spec := testSpec(t, "sysbench", 2, sim.Datastores())
		c.modify(&spec)
		r, err := s.Preflight(ctx, spec)
		if err == nil || r.OK() {
			t.Fatalf("%s: preflight passed:\n%s", c.name, r)
		}
		mustContain(t, err, append([]string{"nothing was created"}, c.want...)...)
		if strings.HasPrefix(c.name, "missing datastore") || strings.HasPrefix(c.name, "missing template") {
			if _, err := s.Provision(ctx, spec, nil); err == nil {
				t.Fatalf("%s: Provision passed", c.name)
			}
		}
		if after := allVMNames(t, s); !slices.Equal(after, before) {
			t.Fatalf("%s: inventory changed: %v -> %v", c.name, before, after)
		}
	}

	// A planned name that exists already.
	taken := testSpec(t, "sqlserver", 1, sim.Datastores())
	taken.NamePrefix = "taken"
	if _, err := s.Provision(ctx, taken, nil); err != nil {
		t.Fatal(err)
	}
	again := testSpec(t, "sqlserver", 2, sim.Datastores())
	again.NamePrefix = "taken"
	_, err := s.Provision(ctx, again, nil)
	mustContain(t, err, "a VM named taken-01 already exists")
	if left, _ := s.List(ctx, again.CampaignID); len(left) != 0 {
		t.Fatalf("created %+v", left)
	}

	// Finder misses stay reachable.
	spec := testSpec(t, "sysbench", 1, sim.Datastores())
	spec.Template = "nope"
	_, err = s.Preflight(ctx, spec)
	var nf *find.NotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("errors.As(*find.NotFoundError) failed on %v", err)
	}
}

func TestPreflightReport(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 8, HostCores: 48, HostMemoryGB: 512})
	spec := testSpec(t, "sysbench", 16, sim.Datastores())
	r, err := s.Preflight(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if r.VCPUs != 256 || r.HostCores != 48 || r.MemoryMB != 16*61440 || r.HostMemoryMB != 512*1024 || !r.IsTemplate || r.BootDiskGB != 10 {
		t.Fatalf("%+v", r)
	}
	if len(r.Datastores) != 8 {
		t.Fatalf("%d datastores", len(r.Datastores))
	}
	for _, d := range r.Datastores {
		if d.VMs != 2 || d.ReservedGB != 2*717 || d.SwapGB != 120 || d.ThinGB != 2*92 || d.NeededGB() != 1554 || d.MountedHosts != 1 {
			t.Errorf("%+v", d)
		}
	}
	text := r.String()
	for _, want := range []string{"CPU overcommit: 256 vCPU on 48 physical cores", "memory overcommit: 960 GB", "LocalDS_7", "need 1554 GB"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}

	// A VM wider than any host cannot power on: a problem, not a warning.
	sim2, s2 := simSession(t, SimOptions{Datastores: 1, HostCores: 4})
	_, err = s2.Preflight(context.Background(), testSpec(t, "sqlserver", 1, sim2.Datastores()))
	mustContain(t, err, "16 vCPU but the largest host has 8 hardware threads")
}
