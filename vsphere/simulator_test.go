package vsphere

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/vmware/govmomi/vim25/mo"
)

func TestSimulator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim, err := StartSimulator(ctx, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	cfg := sim.Config()
	if !cfg.Insecure || cfg.Template != SimTemplate || cfg.Datacenter != "DC0" || len(cfg.Datastores()) != 8 ||
		cfg.Datastores()[7] != "LocalDS_7" || !strings.HasPrefix(cfg.URL, "https://vmbench:") {
		t.Fatalf("%s", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)

	ds, err := s.Finder.Datastore(ctx, "LocalDS_3")
	if err != nil {
		t.Fatal(err)
	}
	var m mo.Datastore
	if err := s.Client.RetrieveOne(ctx, ds.Reference(), []string{"summary"}, &m); err != nil {
		t.Fatal(err)
	}
	if m.Summary.Capacity != 4096<<30 || m.Summary.FreeSpace != 4096<<30 {
		t.Fatalf("capacity %d free %d", m.Summary.Capacity, m.Summary.FreeSpace)
	}
	dir := m.Summary.Url
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("datastore directory: %v", err)
	}
	tmpl, err := s.Finder.VirtualMachine(ctx, SimTemplate)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := tmpl.IsTemplate(ctx); !ok {
		t.Fatal("not a template")
	}
	if vms := allVMNames(t, s); len(vms) != 1 {
		t.Fatalf("inventory has %v, want only the template", vms)
	}

	sim.Close()
	sim.Close() // idempotent
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("datastore directory %s survives Close: %v", dir, err)
	}
	if _, err := Connect(ctx, cfg); err == nil {
		t.Error("Connect after Close succeeded")
	}
}
