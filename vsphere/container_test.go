package vsphere

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"vmbench/internal/containertest"
	vtarget "vmbench/target"
	"vmbench/vsphere/guest"
)

// TestContainerGuestNoRace: with SimOptions.GuestImage a provisioned VM has a
// real Linux guest. Powered on by Provision as any VM, it reports the
// container's IP (not a simulated one); ProvisionSpec.GuestInfo reaches
// it; through guest operations a file goes in (an executable one with
// its mode) and comes back, a missing one is fs.ErrNotExist, and a
// program runs in the guest with its output redirected there (the one
// quoting of guest.Target's /bin/sh -c script, which vcsim hands to the
// host's shell) with a variable of Command.Env (docker exec's -e, quoted
// once too); destroying the VM removes its container.
func TestContainerGuestNoRace(t *testing.T) {
	image := containertest.Image(t)
	_, s := simSession(t, SimOptions{Datastores: 1, GuestImage: image})
	ctx := t.Context()
	spec := testSpec(t, "sysbench", 1, []string{"LocalDS_0"})
	// a name no campaign test uses: vcsim names the container after the
	// VM, and cmd/vmbench's container campaigns may run at the same time
	spec.NamePrefix = "vsphere-ctguest"
	spec.SimulatedIP = ""
	spec.IPTimeout = 2 * time.Minute
	// base64, as vmbench's guest image reads its settings: vcsim hands
	// each value to the host's shell unquoted.
	probe := "it's \"quoted\" & $HOME"
	spec.GuestInfo = map[string]string{"vmbench.probe": base64.StdEncoding.EncodeToString([]byte(probe))}
	vms, err := s.Provision(ctx, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	destroyed := false
	t.Cleanup(func() {
		if !destroyed {
			_, _ = s.Destroy(context.Background(), spec.CampaignID, nil)
		}
	})
	vm := vms[0]
	if ip := net.ParseIP(vm.IP); ip == nil || ip.IsLoopback() {
		t.Fatalf("the VM's IP is %q, want its container's", vm.IP)
	}
	id := containerOf(t, vm.Name)
	if id == "" {
		t.Fatalf("no container runs for VM %s", vm.Name)
	}

	tg, err := s.GuestTarget(ctx, vm.MoRef, guest.Config{Auth: guest.Auth{User: "root", Password: "x"}, Dir: "/var/tmp/vmbench-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if err := tg.WriteFile(ctx, "in.txt", []byte("hello from the harness\n"), 0o644); err != nil {
		t.Fatalf("upload: %v", err)
	}
	if err := tg.WriteFile(ctx, "bin/probe", []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
		t.Fatalf("upload: %v", err)
	}
	p, err := tg.Start(ctx, vtarget.Command{Path: "/bin/sh", Args: []string{"-c",
		`./bin/probe; cat in.txt; printf '%s' "$VMX_GUESTINFO_VMBENCH_PROBE" | base64 -d; echo; echo "a > b && c"; printf '%s\n' "$VMBENCH_ENV_PROBE"; hostname -I`},
		Env: []string{"VMBENCH_ENV_PROBE=" + probe}, Output: "out.txt"})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	if code := waitExit(t, p); code != 0 {
		t.Fatalf("the program in the guest exited %d", code)
	}
	if _, err := tg.ReadFile(ctx, "none.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reading a missing file: %v, want an error wrapping fs.ErrNotExist", err)
	}
	out, err := tg.ReadFile(ctx, "out.txt")
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	want := "ran\nhello from the harness\n" + probe + "\na > b && c\n" + probe + "\n"
	if !strings.HasPrefix(string(out), want) || !strings.Contains(string(out), vm.IP) {
		t.Errorf("the guest's output:\n%s\nwant it to start with:\n%s\nand hold its IP %s", out, want, vm.IP)
	}

	if _, err := s.Destroy(ctx, spec.CampaignID, nil); err != nil {
		t.Fatal(err)
	}
	destroyed = true
	if left := containerOf(t, vm.Name); left != "" {
		t.Errorf("container %s of VM %s is left after its VM was destroyed", left, vm.Name)
	}
}

// waitExit polls p's state until it has ended (at most a minute: a shell
// that prints four lines) and returns its exit code.
func waitExit(t *testing.T, p vtarget.Process) int {
	t.Helper()
	for range 600 {
		running, code, err := p.State(t.Context())
		if err != nil {
			t.Fatalf("state: %v", err)
		}
		if !running {
			return code
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the program in the guest still runs after a minute")
	return -1
}

// containerOf returns the id of the container vcsim made for VM name (it
// names them vcsim-<name>-<uuid>), or "".
func containerOf(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "docker", "ps", "-aq", "--filter", "name=^vcsim-"+name+"-").Output()
	if err != nil {
		t.Fatalf("docker ps: %v", err)
	}
	return string(bytes.TrimSpace(out))
}
