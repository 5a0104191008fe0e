package vsphere

import (
	"context"
	"slices"
	"testing"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"
)

// TestDestroyOnlyOneCampaign: Destroy removes exactly one campaign's VMs
// and leaves another campaign's, an untagged VM and the template.
func TestDestroyOnlyOneCampaign(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 4})
	ctx := context.Background()

	a := testSpec(t, "sysbench", 4, sim.Datastores())
	a.NamePrefix = "a"
	b := testSpec(t, "sqlserver", 2, sim.Datastores()[:2])
	b.NamePrefix = "b"
	b.PowerOn = false // Destroy handles powered-off VMs too
	for _, spec := range []ProvisionSpec{a, b} {
		if _, err := s.Provision(ctx, spec, nil); err != nil {
			t.Fatal(err)
		}
	}
	// An untagged VM cloned by someone else.
	tmpl, err := s.Finder.VirtualMachine(ctx, SimTemplate)
	if err != nil {
		t.Fatal(err)
	}
	pool, _ := s.Finder.DefaultResourcePool(ctx)
	folder, _ := s.Finder.DefaultFolder(ctx)
	poolRef := pool.Reference()
	if err := wait(ctx, func() (*object.Task, error) {
		return tmpl.Clone(ctx, folder, "bystander", types.VirtualMachineCloneSpec{Location: types.VirtualMachineRelocateSpec{Pool: &poolRef}})
	}); err != nil {
		t.Fatal(err)
	}

	all, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, vm := range all {
		names = append(names, vm.Name)
	}
	if want := []string{"a-01", "a-02", "a-03", "a-04", "b-01", "b-02"}; !slices.Equal(names, want) {
		t.Fatalf("List(\"\") = %v, want %v (no template, no untagged VM)", names, want)
	}

	var lines []string
	n, err := s.Destroy(ctx, a.CampaignID, func(m string) { lines = append(lines, m) })
	if err != nil || n != 4 || len(lines) != 4 {
		t.Fatalf("Destroy: %d, %v, %q", n, err, lines)
	}
	if left, _ := s.List(ctx, a.CampaignID); len(left) != 0 {
		t.Fatalf("campaign a still has %+v", left)
	}
	if kept, _ := s.List(ctx, b.CampaignID); len(kept) != 2 || kept[0].PowerState != "poweredOff" {
		t.Fatalf("campaign b: %+v", kept)
	}
	for _, name := range []string{SimTemplate, "bystander", "b-01", "b-02"} {
		if _, err := s.Finder.VirtualMachine(ctx, name); err != nil {
			t.Errorf("%s is gone: %v", name, err)
		}
	}
	// Nothing to destroy is not an error.
	if n, err := s.Destroy(ctx, a.CampaignID, nil); n != 0 || err != nil {
		t.Fatalf("second Destroy: %d, %v", n, err)
	}
	for _, bad := range []string{"", "a b", "x/y"} {
		if _, err := s.Destroy(ctx, bad, nil); err == nil {
			t.Errorf("Destroy(%q) accepted", bad)
		}
	}
	if n, err := s.Destroy(ctx, b.CampaignID, nil); n != 2 || err != nil {
		t.Fatalf("Destroy b: %d, %v", n, err)
	}
}

func TestInspectMissingVM(t *testing.T) {
	t.Parallel()
	_, s := simSession(t, SimOptions{Datastores: 1})
	_, err := s.Inspect(context.Background(), "no-such-vm")
	mustContain(t, err, "no-such-vm", "not found")
}

func TestInspectTemplate(t *testing.T) {
	t.Parallel()
	_, s := simSession(t, SimOptions{Datastores: 1})
	info, err := s.Inspect(context.Background(), SimTemplate)
	if err != nil {
		t.Fatal(err)
	}
	if info.NumCPU != 1 || len(info.Disks) != 1 || info.Disks[0].SizeGB != 10 || info.Disks[0].Provisioning != Thin ||
		info.Disks[0].Controller != "pvscsi" || info.PowerState != "poweredOff" || info.CampaignID != "" {
		t.Fatalf("%+v", info)
	}
	if got := info.DiskSummary(); got != "10G thin (pvscsi:0)" {
		t.Errorf("DiskSummary() = %q", got)
	}
}
