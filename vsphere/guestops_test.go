package vsphere

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	vtarget "vmbench/target"
	"vmbench/vsphere/guest"
)

// TestGuestTarget: a Session opens a guest-operations target on one of
// its VMs by managed object id. vcsim has no guest: it accepts the
// directory calls, refuses file transfers as Tools being unavailable and
// cannot run programs (the Target refuses before asking it), so this
// checks the wiring from a Session to the guest operations, not a guest.
func TestGuestTarget(t *testing.T) {
	_, s := simSession(t, SimOptions{Datastores: 1})
	ctx := t.Context()
	vm, err := s.Finder.VirtualMachine(ctx, SimTemplate)
	if err != nil {
		t.Fatal(err)
	}
	cfg := guest.Config{Name: "worker-01", Auth: guest.Auth{User: "bench", Password: "secret"}, Dir: "/var/tmp/vmbench-x"}
	if _, err := s.GuestTarget(ctx, "", cfg); err == nil {
		t.Fatal("an empty moref was accepted")
	}
	tg, err := s.GuestTarget(ctx, vm.Reference().Value, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if tg.Name() != "worker-01" {
		t.Errorf("name %q", tg.Name())
	}
	local := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(local, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tg.Upload(ctx, local, "f", 0o600); !errors.Is(err, guest.ErrToolsUnavailable) {
		t.Errorf("upload on vcsim: %v, want ErrToolsUnavailable", err)
	}
	if _, err := tg.Start(ctx, vtarget.Command{Path: "bin/vmbench"}); !errors.Is(err, guest.ErrSimulator) {
		t.Errorf("start on vcsim: %v, want ErrSimulator (vcsim is never asked to run a program)", err)
	}
}
