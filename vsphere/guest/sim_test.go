package guest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/types"

	"vmbench/target"
)

// These tests run against vcsim in process. vcsim v0.56.0 implements the
// guest file and directory calls by running commands in a Docker
// container and, for a VM without one, MakeDirectory, Move and Delete
// succeed without doing anything while the file transfers answer
// GuestOperationsUnavailable; its StartProgramInGuest panics. So they
// check New (validation, OS and architecture from the VM's
// configuration), the mapping of the transfer fault, and the guard that
// keeps every Target on vcsim away from StartProgramInGuest.

// withSimVM runs f with a client on a fresh vcsim VPX inventory and its
// powered-on VM DC0_H0_VM0.
func withSimVM(t *testing.T, f func(ctx context.Context, c *vim25.Client, vm *object.VirtualMachine)) {
	t.Helper()
	m := simulator.VPX()
	defer m.Remove()
	err := m.Run(func(ctx context.Context, c *vim25.Client) error {
		finder := find.NewFinder(c, true)
		dc, err := finder.DefaultDatacenter(ctx)
		if err != nil {
			return err
		}
		finder.SetDatacenter(dc)
		vm, err := finder.VirtualMachine(ctx, "DC0_H0_VM0")
		if err != nil {
			return err
		}
		f(ctx, c, vm)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func setGuestID(ctx context.Context, t *testing.T, vm *object.VirtualMachine, id string) {
	t.Helper()
	task, err := vm.Reconfigure(ctx, types.VirtualMachineConfigSpec{GuestId: id})
	if err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("reconfigure guest id %s: %v", id, err)
	}
}

var login = Auth{User: "bench", Password: "secret-pw"}

func TestSimNewDetectsOS(t *testing.T) {
	withSimVM(t, func(ctx context.Context, c *vim25.Client, vm *object.VirtualMachine) {
		for _, tc := range []struct {
			id, dir  string
			os, arch string
		}{
			{"ubuntu64Guest", "/home/bench/vmbench", "linux", "amd64"},
			{"rhel9_64Guest", "/opt/vmbench/", "linux", "amd64"},
			{"windows2019srv_64Guest", `C:\vmbench`, "windows", "amd64"},
			{"windows2019srv_64Guest", `c:/vmbench/`, "windows", "amd64"},
		} {
			setGuestID(ctx, t, vm, tc.id)
			tg, err := New(ctx, vm, c, Config{Auth: login, Dir: tc.dir})
			if err != nil {
				t.Errorf("%s: New: %v", tc.id, err)
				continue
			}
			if tg.Name() != "DC0_H0_VM0" || tg.os != tc.os || tg.arch != tc.arch {
				t.Errorf("%s: name %q, %s/%s; want DC0_H0_VM0, %s/%s", tc.id, tg.Name(), tg.os, tg.arch, tc.os, tc.arch)
			}
			if !tg.ops.(*realOps).simulated {
				t.Errorf("%s: vcsim not detected", tc.id)
			}
		}
		setGuestID(ctx, t, vm, "otherGuest")
		if _, err := New(ctx, vm, c, Config{Auth: login, Dir: "/x"}); err == nil || !strings.Contains(err.Error(), "otherGuest") {
			t.Errorf("otherGuest: err = %v, want one naming the guest id", err)
		}
	})
}

func TestSimNewValidates(t *testing.T) {
	withSimVM(t, func(ctx context.Context, c *vim25.Client, vm *object.VirtualMachine) {
		setGuestID(ctx, t, vm, "ubuntu64Guest")
		for _, tc := range []struct {
			cfg  Config
			want string
		}{
			{Config{Dir: "/x"}, EnvGuestLogin},
			{Config{Auth: Auth{User: "u"}, Dir: "/x"}, EnvGuestLogin},
			{Config{Auth: login}, "Config.Dir"},
			{Config{Auth: login, Dir: "rel/dir"}, "absolute"},
			{Config{Auth: login, Dir: "/a/../b"}, "clean"},
			{Config{Auth: login, Dir: `C:\vmbench`}, "absolute Linux"},
		} {
			_, err := New(ctx, vm, c, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%+v): err = %v, want one mentioning %q", tc.cfg.Dir, err, tc.want)
			} else if strings.Contains(err.Error(), login.Password) {
				t.Errorf("the error shows the password: %v", err)
			}
		}
		if _, err := New(ctx, nil, c, Config{Auth: login, Dir: "/x"}); err == nil {
			t.Error("New without a VM succeeded")
		}
	})
}

// TestSimRefusesStartProgram is the guard's runtime half: on vcsim, Start
// and the Windows Kill (which starts taskkill) return ErrSimulator without
// sending StartProgramInGuest, and vcsim keeps answering afterwards (the
// crash would leave it deadlocked and the test hanging at server close).
func TestSimRefusesStartProgram(t *testing.T) {
	withSimVM(t, func(ctx context.Context, c *vim25.Client, vm *object.VirtualMachine) {
		for _, id := range []string{"ubuntu64Guest", "windows2019srv_64Guest"} {
			setGuestID(ctx, t, vm, id)
			dir := "/vmbench"
			if strings.HasPrefix(id, "windows") {
				dir = `C:\vmbench`
			}
			tg, err := New(ctx, vm, c, Config{Auth: login, Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tg.Start(ctx, target.Command{Path: "bin/agent", Args: []string{"run"}}); !errors.Is(err, ErrSimulator) {
				t.Errorf("%s: Start on vcsim: err = %v, want ErrSimulator", id, err)
			}
			p := &process{t: tg, pid: 4242}
			if running, code, err := p.State(ctx); err != nil || running || code != -1 {
				t.Errorf("%s: State after the refusal = %v, %d, %v; want vcsim answering, not listed", id, running, code, err)
			}
		}
		fake := &process{t: &Target{name: "w", os: "windows", dir: `C:\w`, ops: runningOps{}}, pid: 7}
		if err := fake.Kill(ctx); !errors.Is(err, ErrSimulator) {
			t.Errorf("Windows Kill on vcsim: err = %v, want ErrSimulator", err)
		}
	})
}

// runningOps reports every process running and refuses StartProgram as
// realOps does on vcsim; it exists to reach the Windows Kill's taskkill.
type runningOps struct{ ops }

func (runningOps) ListProcess(context.Context, int64) (*types.GuestProcessInfo, error) {
	return &types.GuestProcessInfo{}, nil
}

func (runningOps) StartProgram(context.Context, types.GuestProgramSpec) (int64, error) {
	return 0, ErrSimulator
}

func TestSimTransfersUnavailable(t *testing.T) {
	withSimVM(t, func(ctx context.Context, c *vim25.Client, vm *object.VirtualMachine) {
		setGuestID(ctx, t, vm, "ubuntu64Guest")
		tg, err := New(ctx, vm, c, Config{Auth: login, Dir: "/vmbench"})
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.WriteFile(ctx, "job.json", []byte("{}"), 0o600); !errors.Is(err, ErrToolsUnavailable) {
			t.Errorf("WriteFile on vcsim: err = %v, want ErrToolsUnavailable", err)
		}
		if _, err := tg.ReadFile(ctx, "job.json"); !errors.Is(err, ErrToolsUnavailable) {
			t.Errorf("ReadFile on vcsim: err = %v, want ErrToolsUnavailable", err)
		}
		if _, err := tg.Info(ctx); !errors.Is(err, ErrToolsUnavailable) {
			t.Errorf("Info on vcsim: err = %v, want ErrToolsUnavailable", err)
		}
	})
}

// TestNoOtherStartProgram is the guard's static half: StartProgramInGuest
// is reached only through realOps.StartProgram, which refuses on vcsim.
// No file outside this package may name StartProgram or import govmomi's
// guest packages, and inside it only ops.go calls the process manager's
// StartProgram and nothing calls toolbox.Client.Run (which starts
// programs unguarded).
func TestNoOtherStartProgram(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found: %v", err)
	}
	outside := regexp.MustCompile(`StartProgram|"github.com/vmware/govmomi/guest(/toolbox)?"`)
	direct := regexp.MustCompile(`\.pm\.StartProgram\(|methods\.StartProgramInGuest|\.tb\.Run\(|toolbox\.NewClient`)
	here, _ := filepath.Abs(".")
	checked := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checked++
		abs, _ := filepath.Abs(p)
		if filepath.Dir(abs) != here {
			if loc := outside.FindIndex(b); loc != nil {
				t.Errorf("%s names %q: guest programs must go through vsphere/guest, whose StartProgram refuses vcsim", p, b[loc[0]:loc[1]])
			}
			return nil
		}
		for _, loc := range direct.FindAllIndex(b, -1) {
			if m := string(b[loc[0]:loc[1]]); filepath.Base(p) != "ops.go" || m != ".pm."+"StartProgram(" {
				t.Errorf("%s calls %q outside realOps.StartProgram's vcsim guard", p, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d Go files checked; is the walk at the repository root?", checked)
	}
}

// TestSimFaultMapping injects the guest faults real VMware Tools returns
// (vcsim cannot produce them without a container) and checks that they
// reach the caller as the errors target promises: FileNotFound on a read
// is fs.ErrNotExist, NotAFile on a file delete makes RemoveAll try the
// directory, FileAlreadyExists on the working directory is no error, and
// vcsim's own GuestProcessNotFound makes Kill of an unlisted process a
// no-op.
func TestSimFaultMapping(t *testing.T) {
	withSimVM(t, func(ctx context.Context, c *vim25.Client, vm *object.VirtualMachine) {
		setGuestID(ctx, t, vm, "ubuntu64Guest")
		svc := simulator.ServiceFromContext(ctx)
		inject := func(method string, f types.BaseMethodFault) {
			svc.AddFaultRule(&simulator.FaultInjectionRule{MethodName: method, ObjectType: "*", ObjectName: "*",
				Probability: 1, FaultType: simulator.FaultTypeCustom, Fault: f, Enabled: true})
		}
		inject("MakeDirectoryInGuest", &types.FileAlreadyExists{})
		inject("InitiateFileTransferFromGuest", &types.FileNotFound{})
		inject("DeleteFileInGuest", &types.NotAFile{})
		tg, err := New(ctx, vm, c, Config{Auth: login, Dir: "/vmbench"})
		if err != nil {
			t.Fatalf("New with the directory already there: %v", err)
		}
		if _, err := tg.ReadFile(ctx, "result.json"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadFile of a missing file: err = %v, want fs.ErrNotExist", err)
		}
		if err := tg.RemoveAll(ctx, "results"); err != nil {
			t.Errorf("RemoveAll of a directory: %v", err)
		}
		if err := (&process{t: tg, pid: 99}).Kill(ctx); err != nil {
			t.Errorf("Kill of an unlisted process: %v", err)
		}
		if err := tg.ops.TerminateProcess(ctx, 99); !errors.Is(err, errNoProcess) {
			t.Errorf("TerminateProcess of an unknown pid: err = %v, want errNoProcess", err)
		}
	})
}
