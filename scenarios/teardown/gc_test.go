package teardown

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
)

func TestDecideGC(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	const noTime = time.Duration(math.MinInt64) // a VM without vmbench.created
	vm := func(campaign string, age time.Duration) vsphere.VM {
		v := vsphere.VM{Name: "vm-01", CampaignID: campaign}
		if age != noTime {
			v.Created = now.Add(-age)
		}
		return v
	}
	here := func(v vsphere.VM) vsphere.VM { v.Harness = "lab-1"; return v }
	there := func(v vsphere.VM) vsphere.VM { v.Harness = "lab-2"; return v }
	finished := CampaignProbe{State: StateFinished, Dir: "results/c"}
	incomplete := CampaignProbe{State: StateIncomplete, Dir: "results/c.incomplete"}
	running := CampaignProbe{State: StateRunning, Dir: "results/c.incomplete", Detail: "pid 42"}
	unknown := CampaignProbe{State: StateUnknown, Detail: "permission denied"}
	none := CampaignProbe{State: StateNoResults}
	for _, c := range []struct {
		name      string
		vm        vsphere.VM
		probe     CampaignProbe
		olderThan time.Duration
		remove    bool
		reason    string
	}{
		{"finished", vm("c", time.Hour), finished, 0, true, "the campaign finished (results/c)"},
		{"incomplete, not running", vm("c", time.Hour), incomplete, 0, true, "the campaign stopped unfinished (results/c.incomplete)"},
		{"no results directory, made here", here(vm("c", time.Hour)), none, 0, true, "no results directory of the campaign"},
		{"no results directory, another harness", there(vm("c", time.Hour)), none, 0, false, "harness lab-2 made it"},
		{"no results directory, another harness, named", there(vm("c", time.Hour)), none, -1, true, "no results directory of the campaign"},
		{"no results directory, another harness, old", there(vm("c", 48*time.Hour)), none, 24 * time.Hour, true, "no results directory of the campaign"},
		{"no results directory, no harness tag", vm("c", time.Hour), none, 0, false, "no vmbench.harness tag"},
		{"running", vm("c", 48*time.Hour), running, time.Hour, false, "the campaign runs: pid 42 holds results/c.incomplete/.lock"},
		{"finished but locked by teardown", vm("c", time.Hour), CampaignProbe{State: StateRunning, Dir: "results/c", Detail: "pid 7"}, 0, false, "pid 7 holds"},
		{"unknown state", vm("c", 48*time.Hour), unknown, 0, false, "cannot tell whether the campaign runs: permission denied"},
		{"no tag", vm("", 48*time.Hour), none, 0, false, "no vmbench campaign tag"},
		{"no tag, any state", vm("", 48*time.Hour), finished, 0, false, "no vmbench campaign tag"},
		{"older than", vm("c", 25*time.Hour), finished, 24 * time.Hour, true, "the campaign finished"},
		{"exactly as old", vm("c", 24*time.Hour), incomplete, 24 * time.Hour, true, "stopped unfinished"},
		{"too young", vm("c", 90*time.Minute), none, 24 * time.Hour, false, "created 1h30m0s ago, not older than --older-than 24h0m0s"},
		{"created in the future", vm("c", -time.Hour), none, time.Minute, false, "not older than --older-than 1m0s"},
		{"no creation time with --older-than", vm("c", noTime), finished, time.Hour, false, "no creation time (vmbench.created)"},
		{"no creation time without --older-than", vm("c", noTime), finished, 0, true, "the campaign finished"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := GCOptions{OlderThan: c.olderThan, Now: now, Harness: "lab-1"}
			if c.olderThan < 0 { // -1: --campaign named it
				o.OlderThan, o.Named = 0, true
			}
			d := DecideGC(c.vm, c.probe, o)
			if d.Remove != c.remove || !strings.Contains(d.Reason, c.reason) {
				t.Errorf("DecideGC = %+v, want remove=%v, reason containing %q", d, c.remove, c.reason)
			}
		})
	}
}

func TestProbeCampaign(t *testing.T) {
	results := t.TempDir()
	mkdir := func(name string) string {
		t.Helper()
		d := filepath.Join(results, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	hold := func(dir string) *rundir.RunLock {
		t.Helper()
		l, err := rundir.Lock(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(l.Release)
		return l
	}
	mkdir("done-1")
	dead := mkdir("dead-1.incomplete")
	if err := os.WriteFile(filepath.Join(dead, rundir.LockFile), []byte("999999\n"), 0o644); err != nil {
		t.Fatal(err) // the lock file of a process that is gone
	}
	mkdir("nolock-1.incomplete")
	hold(mkdir("live-1.incomplete"))
	hold(mkdir("closing-1")) // finished, its process (or a teardown) still holds it
	if err := os.WriteFile(filepath.Join(results, "file-1"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wantRunning := StateRunning
	if !rundir.FileLocks {
		wantRunning = StateUnknown
	}
	for _, c := range []struct {
		id     string
		state  CampaignState
		detail string
	}{
		{"done-1", StateFinished, ""},
		{"dead-1", StateIncomplete, ""},
		{"nolock-1", StateIncomplete, ""},
		{"live-1", wantRunning, fmt.Sprintf("pid %d", os.Getpid())},
		{"closing-1", StateRunning, fmt.Sprintf("pid %d", os.Getpid())},
		{"gone-1", StateNoResults, ""},
		{"file-1", StateUnknown, "is not a directory"},
		{"..", StateUnknown, "cannot name a results directory"},
		{"", StateUnknown, "cannot name a results directory"},
		{"a/b", StateUnknown, "cannot name a results directory"},
	} {
		p := ProbeCampaign(results, c.id)
		if !rundir.FileLocks && c.id != "live-1" && c.state == StateIncomplete {
			c.state = StateUnknown
		}
		if p.State != c.state || !strings.Contains(p.Detail, c.detail) {
			t.Errorf("ProbeCampaign(%q) = %+v, want %v with %q", c.id, p, c.state, c.detail)
		}
	}
	// Probing changed nothing: no lock file made, none rewritten.
	if _, err := os.Stat(filepath.Join(results, "nolock-1.incomplete", rundir.LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("probing made a lock file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dead, rundir.LockFile)); string(b) != "999999\n" {
		t.Errorf("probing rewrote the lock file: %q", b)
	}
}

// LockCampaign holds a campaign off while its VMs are removed: a second
// taker (another gc, a teardown) is refused with ErrRunning, and a probe
// sees the campaign as running until it is released.
func TestLockCampaign(t *testing.T) {
	if !rundir.FileLocks {
		t.Skip("no file locks on this system")
	}
	results := t.TempDir()
	if err := os.Mkdir(filepath.Join(results, "c-1.incomplete"), 0o755); err != nil {
		t.Fatal(err)
	}
	release, err := LockCampaign(results, "c-1")
	if err != nil {
		t.Fatal(err)
	}
	if p := ProbeCampaign(results, "c-1"); p.State != StateRunning {
		t.Errorf("while locked: %+v", p)
	}
	if _, err := LockCampaign(results, "c-1"); !errors.Is(err, rundir.ErrRunning) {
		t.Errorf("second LockCampaign: %v, want ErrRunning", err)
	}
	release()
	if p := ProbeCampaign(results, "c-1"); p.State != StateIncomplete {
		t.Errorf("after release: %+v", p)
	}
	if release, err := LockCampaign(results, "no-dir-1"); err != nil {
		t.Errorf("LockCampaign without a results directory: %v", err)
	} else {
		release()
	}
	if _, err := LockCampaign(results, ".."); err == nil {
		t.Error("LockCampaign(\"..\") accepted")
	}
}
