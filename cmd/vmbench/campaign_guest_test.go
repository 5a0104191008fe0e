package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vmbench/agent"
	"vmbench/oltp"
)

// guestCampaign is tinyCampaign driven inside each (simulated) guest: each
// VM's agent is this test binary started as `vmbench agent run DIR` (see
// TestMain) in a directory of its own.
func guestCampaign(name string) string {
	return strings.Replace(strings.Replace(tinyCampaign, "name: tiny", "name: "+name, 1),
		"simulate:\n", "simulate:\n  driver: guest\n", 1)
}

// campaignTemp is the campaign's temporary directory pattern (the VMs'
// SQLite files and simulated guests).
// campaignTemps lists the temporary directories (os.TempDir()/vmbench-<campaign
// ID>, scenarios' tempDirName) that exist of the campaigns whose results
// directories are under res: a test looks at its own campaigns' only, never
// at another process's campaign of the same name (two checkouts testing at
// once share /tmp: a glob by name once reported another run's directory as
// left behind, and could have killed another run's agent).
func campaignTemps(res string) []string {
	dirs, _ := filepath.Glob(filepath.Join(res, "*"))
	var out []string
	for _, d := range dirs {
		id := strings.TrimSuffix(filepath.Base(d), ".incomplete")
		p := filepath.Join(os.TempDir(), "vmbench-"+id)
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// TestGuestDrivenCampaign: with driver guest every VM's workload runs in
// its own agent process; the VM Results come back labelled so, merge
// exactly (vmbench report checks merged.json against them), the harness
// spends a fraction of what the agents spend, and nothing is left behind.
func TestGuestDrivenCampaign(t *testing.T) {
	t.Parallel()
	eachCampaignDatabase(t, func(t *testing.T, dsn string) {
		res := t.TempDir()
		stdout, stderr := runSimulatedCampaign(t, writeFile(t, "g.yaml", guestCampaign("guestrun")), res, dsnArgs(dsn)...)
		for _, want := range []string{"uploaded to 2 guests, checksums checked", "harness CPU over the run step", "destroyed 2 VMs",
			"consistency checks after the run passed on 2 of 2 VMs"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("log lacks %q:\n%s", want, stderr)
			}
		}
		if !strings.Contains(stdout, "checks: consistency checks after the run passed on 2 of 2 VMs") {
			t.Errorf("review does not give the checks' verdict:\n%s", stdout)
		}
		if !strings.Contains(stdout, "driven inside each VM's guest by the vmbench agent") {
			t.Errorf("review does not say where the drivers ran:\n%s", stdout)
		}
		dirs, _ := filepath.Glob(filepath.Join(res, "guestrun-*"))
		if len(dirs) != 1 {
			t.Fatalf("results dirs %v", dirs)
		}
		merged := mergedResult(t, res, "guestrun")
		if merged.Parts != 2 || merged.Client == nil || merged.Client.Processes != 2 {
			t.Errorf("merged: parts %d, client %+v; want 2 parts measured by 2 agent processes", merged.Parts, merged.Client)
		}
		for _, vm := range []string{"sysbench-01", "sysbench-02"} {
			r, err := oltp.ReadResultFile(filepath.Join(dirs[0], "vms", vm+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if r.Labels["driver"] != "guest" || r.Labels["vm"] != vm || r.Client == nil || r.Client.Process == merged.Client.Process {
				t.Errorf("%s: labels %v client %+v", vm, r.Labels, r.Client)
			}
			// The agent's own check lines, copied from its log.txt.
			if b, err := os.ReadFile(filepath.Join(dirs[0], "checks", vm+".txt")); err != nil || !strings.Contains(string(b), "sbtest2: want 500 rows, ids 1..500: ok") || !strings.HasSuffix(string(b), "# passed\n") {
				t.Errorf("%s's checks: %q %v", vm, b, err)
			}
		}
		if code, _, errs := runCLI(t, nil, "report", dirs[0]); code != 0 {
			t.Errorf("vmbench report: exit %d\n%s", code, errs)
		}
		if _, err := os.Stat(filepath.Join(os.TempDir(), "vmbench-"+filepath.Base(dirs[0]))); !os.IsNotExist(err) {
			t.Errorf("the campaign's temporary directory was left behind (%v)", err)
		}
	})
}

// TestGuestAgentKilledMidMeasure: an agent killed with SIGKILL while it
// measures fails its VM with what the campaign can say about it; the
// other VM's agent is stopped, its partial Result kept, and every VM,
// agent and directory removed.
func TestGuestAgentKilledMidMeasure(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	spec := strings.Replace(guestCampaign("guestkill"), "time: 2s", "time: 60s", 1)
	done := make(chan struct{})
	killed := make(chan int, 1)
	go func() { killed <- killWhenMeasuring(res, "sysbench-01", done) }()
	code, _, stderr := runCLI(t, nil, "campaign", "run", writeFile(t, "k.yaml", spec), "--simulate", "--results-dir", res)
	close(done)
	if pid := <-killed; pid == 0 {
		t.Fatalf("the agent of sysbench-01 was never seen measuring (exit %d):\n%s", code, stderr)
	}
	if code != 1 || !strings.Contains(stderr, "agent on sysbench-01 ended") {
		t.Fatalf("exit %d, want 1 naming the killed agent:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "destroyed 2 VMs") {
		t.Errorf("no teardown:\n%s", stderr)
	}
	if left := campaignTemps(res); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	dirs, _ := filepath.Glob(filepath.Join(res, "guestkill-*.incomplete"))
	if len(dirs) != 1 {
		t.Fatalf("want the incomplete results directory with the other VM's partial Result; have %v\n%s", dirs, stderr)
	}
	r, err := oltp.ReadResultFile(filepath.Join(dirs[0], "vms", "sysbench-02.json"))
	if err != nil || !r.Interrupted {
		t.Errorf("sysbench-02's partial Result: %v, interrupted %v", err, r != nil && r.Interrupted)
	}
}

// killWhenMeasuring waits until vm's agent, in the campaign whose results
// directory is under res, says it measures, kills it with SIGKILL and
// returns its pid; 0 if done closes first (an agent that ends before the
// kill is not counted).
func killWhenMeasuring(res, vm string, done <-chan struct{}) int {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return 0
		case <-tick.C:
		}
		for _, tmp := range campaignTemps(res) {
			f := filepath.Join(tmp, "guests", vm, "run", agent.StatusFile)
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			var st agent.Status
			if json.Unmarshal(b, &st) == nil && st.State == agent.StateMeasure && st.Intervals > 0 {
				if syscall.Kill(st.PID, syscall.SIGKILL) != nil {
					continue // it ended on its own: not the kill this waits to make
				}
				return st.PID
			}
		}
	}
}

// TestGuestCampaignInterrupted: Ctrl-C while the agents measure stops
// them (each writes its partial Result, kept in the incomplete results
// directory) and removes every VM and directory.
func TestGuestCampaignInterrupted(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	spec := strings.Replace(guestCampaign("guestint"), "time: 2s", "time: 60s", 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			var files []string
			for _, tmp := range campaignTemps(res) {
				f, _ := filepath.Glob(filepath.Join(tmp, "guests", "*", "run", "intervals", "000002.json"))
				files = append(files, f...)
			}
			if len(files) == 2 {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	code, _, stderr := runCLIContext(ctx, t, nil, "campaign", "run", writeFile(t, "i.yaml", spec), "--simulate", "--results-dir", res)
	if code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, stderr)
	}
	if left := campaignTemps(res); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	dirs, _ := filepath.Glob(filepath.Join(res, "guestint-*.incomplete", "vms", "*.json"))
	if len(dirs) != 2 {
		t.Errorf("partial VM Results kept: %v, want 2\n%s", dirs, stderr)
	}
}
