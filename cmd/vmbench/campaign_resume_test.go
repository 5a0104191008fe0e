//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"vmbench/oltp"
	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
)

// vcsimCampaign is `campaign run` of the tiny campaign with --simulate
// (its sizes, an SQLite database per VM) against the test's own vcsim sim
// (--url): its VMs outlive a killed campaign process.
func vcsimCampaign(t *testing.T, sim *vsphere.Simulator, results string) []string {
	t.Helper()
	cfg := sim.Config()
	return []string{"campaign", "run", writeFile(t, "tiny.yaml", tinyCampaign), "--simulate", "--results-dir", results,
		"--url", cfg.URL, "-k", "--ds", cfg.Datastore, "--template", cfg.Template, "--pool", cfg.ResourcePool}
}

// campaignVMs lists the VMs carrying campaign id on sim.
func campaignVMs(t *testing.T, sim *vsphere.Simulator, id string) []vsphere.VM {
	t.Helper()
	cfg := sim.Config()
	cfg.Home = t.TempDir()
	s, err := vsphere.Connect(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(t.Context())
	vms, err := s.List(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return vms
}

// killedInMeasure starts a vcsim, runs the tiny campaign on it in a child
// process (vcsimCampaign) and SIGKILLs it in its measure phase. It returns
// the vcsim, the results directory, the campaign's id and the child's
// log, having checked that the campaign's 2 VMs are left on the vcsim.
func killedInMeasure(t *testing.T) (sim *vsphere.Simulator, dir, id string, log []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a campaign in a child process")
	}
	sim = startSimulator(t, 2)
	res := t.TempDir()
	log = killAt(t, "phase measure", vcsimCampaign(t, sim, res)...)
	dir = resultsDir(t, res)
	id = strings.TrimSuffix(filepath.Base(dir), ".incomplete")
	if n := len(campaignVMs(t, sim, id)); n != 2 {
		t.Fatalf("after the kill the vcsim has %d VMs of campaign %s, want 2", n, id)
	}
	return sim, dir, id, log
}

// journalSteps reads the steps a results directory's journal records.
func journalSteps(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, rundir.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e rundir.JournalEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", rundir.JournalFile, err)
		}
		steps = append(steps, string(e.Step))
	}
	return steps
}

// A campaign killed (SIGKILL) in its measure phase resumes from its
// results directory: the same VMs (nothing provisioned again), the
// databases prepared again and the run done again, then a complete
// directory, the VMs destroyed and nothing left in the manifest.
func TestResumeAfterKillInMeasure(t *testing.T) {
	t.Parallel()
	sim, dir, id, log := killedInMeasure(t)
	if l := strings.Join(log, "\n"); strings.Contains(l, "in-process simulator") || !strings.Contains(l, ": sqlite ") {
		t.Fatalf("the campaign did not run on the test's vcsim with SQLite databases:\n%s", l)
	}
	before := campaignVMs(t, sim, id)
	steps := journalSteps(t, dir)
	if strings.Join(steps, ",") != "preflight,provision,databases,prepare" {
		t.Fatalf("the journal after a kill in measure records %v", steps)
	}

	code, stdout, stderr := runCLI(t, nil, "campaign", "resume", dir, "--url", sim.Config().URL, "-k")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, not := range []string{"] preflight", "] provision"} {
		if strings.Contains(stderr, not) {
			t.Errorf("resume redid a finished step (%q):\n%s", not, stderr)
		}
	}
	for _, want := range []string{"found the 2 VMs", "] prepare ", "] run ", "phase measure", "destroyed 2 VMs"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("resume's log lacks %q:\n%s", want, stderr)
		}
	}
	final := strings.TrimSuffix(dir, ".incomplete")
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the resume (%v)", dir, err)
	}
	merged, err := oltp.ReadResultFile(filepath.Join(final, "merged.json"))
	if err != nil {
		t.Fatal(err)
	}
	if merged.Parts != 2 {
		t.Errorf("merged.json combines %d VMs, want 2", merged.Parts)
	}
	for _, vm := range before {
		if _, err := oltp.ReadResultFile(filepath.Join(final, "vms", vm.Name+".json")); err != nil {
			t.Errorf("VM %s: %v", vm.Name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(final, "report.md")); err != nil {
		t.Error(err)
	}
	var ri rundir.RunInfo
	if b, err := os.ReadFile(filepath.Join(final, rundir.RunFile)); err != nil || json.Unmarshal(b, &ri) != nil || !ri.Completed {
		t.Errorf("run.json does not say completed: %v %+v", err, ri)
	}
	for i, vm := range ri.VMs {
		if i >= len(before) || vm.Name != before[i].Name || vm.MoRef != before[i].MoRef {
			t.Errorf("run.json VM %d is %s %s; the kill left %v (nothing is provisioned again)", i, vm.Name, vm.MoRef, before)
		}
	}
	if left := campaignVMs(t, sim, id); len(left) != 0 {
		t.Errorf("after the resume the vcsim still has %d VMs of campaign %s", len(left), id)
	}
	if left := manifestNames(t, final); len(left) != 0 {
		t.Errorf("after the resume the manifest still lists %v", left)
	}
	if _, err := os.Stat(filepath.Join(os.TempDir(), "vmbench-"+id)); !os.IsNotExist(err) {
		t.Errorf("the SQLite directory is still there (%v)", err)
	}
	if steps := journalSteps(t, final); strings.Join(steps[len(steps)-6:], ",") != "resume,databases,prepare,run,checks,collect" {
		t.Errorf("the journal after the resume records %v", steps)
	}
	// The overhead record keeps the killed process's provisioning; the
	// measured window is the resume's run.
	if o := ri.Overhead; o == nil || len(o.Processes) != 2 {
		t.Errorf("run.json's overhead: %+v", o)
	} else {
		if d, ok := processWall(o, 1, rundir.StepProvision); !ok || d <= 0 {
			t.Errorf("the killed process's provisioning is not in the record (%v, %.3f s): %+v", ok, d, o.Steps)
		}
		if _, ok := processWall(o, 2, rundir.StepProvision); ok {
			t.Errorf("the resume provisioned: %+v", o.Steps)
		}
		if d, _ := processWall(o, 2, rundir.StepMeasure); d <= 0 || d > o.Workload().Seconds() {
			t.Errorf("the resume's measure %.3f s, the window %s", d, o.Workload())
		}
	}

	// A complete directory is refused.
	code, _, stderr = runCLI(t, nil, "campaign", "resume", final, "--url", sim.Config().URL, "-k")
	if code != 2 || !strings.Contains(stderr, "is complete") {
		t.Errorf("resume of a complete directory: exit %d, %q; want 2 saying it is complete", code, stderr)
	}
}

// campaign teardown after a kill -9 destroys the VMs the campaign left on
// a vSphere (here the test's vcsim) and whatever else it lists.
func TestTeardownAfterKillOnVcsim(t *testing.T) {
	sim, dir, id, _ := killedInMeasure(t)
	code, stdout, stderr := runCLI(t, nil, "campaign", "teardown", dir, "--url", sim.Config().URL, "-k")
	if code != 0 {
		t.Fatalf("teardown: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := len(campaignVMs(t, sim, id)); n != 0 {
		t.Errorf("after teardown the vcsim has %d VMs of campaign %s", n, id)
	}
	if left := manifestNames(t, dir); len(left) != 0 {
		t.Errorf("after teardown the manifest still lists %v", left)
	}
	// Torn down, it is no longer resumable.
	code, _, stderr = runCLI(t, nil, "campaign", "resume", dir, "--url", sim.Config().URL, "-k")
	if code != 2 || !strings.Contains(stderr, "were removed") {
		t.Errorf("resume after teardown: exit %d, %q; want 2 saying the VMs were removed", code, stderr)
	}
}

// Directories that cannot be resumed are refused with exit status 2 and
// a reason, nothing changed: missing, no manifest, no journal, stopped
// before provisioning, VMs in the in-process simulator, locked by a live
// run.
func TestResumeRefuses(t *testing.T) {
	mk := func(t *testing.T, files map[string]string) string {
		dir := filepath.Join(t.TempDir(), "tiny-20260102T150405Z-a1b2.incomplete")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	vm := `{"op":"create","kind":"vm","name":"sysbench-01","campaign":"tiny-20260102T150405Z-a1b2","time":"2026-01-02T15:04:05Z","vsphere":{"in_process":true}}` + "\n"
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no manifest", map[string]string{}, rundir.ManifestFile},
		{"no journal", map[string]string{rundir.ManifestFile: vm}, "has no " + rundir.JournalFile},
		{"stopped in provision", map[string]string{rundir.ManifestFile: vm,
			rundir.JournalFile: `{"step":"preflight","time":"2026-01-02T15:04:06Z"}` + "\n"}, "before its VMs were all provisioned (steps finished: preflight)"},
		{"in-process simulator", map[string]string{rundir.ManifestFile: vm,
			rundir.JournalFile: `{"step":"provision","time":"2026-01-02T15:04:06Z","simulated":true,"in_process":true}` + "\n"}, "ended with that process"},
		{"no campaign.yaml", map[string]string{rundir.ManifestFile: strings.Replace(vm, `"in_process":true`, `"url":"https://127.0.0.1/sdk"`, 1),
			rundir.JournalFile: `{"step":"provision","time":"2026-01-02T15:04:06Z","vsphere_url":"https://127.0.0.1/sdk"}` + "\n"}, "has no campaign.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := mk(t, tc.files)
			code, _, stderr := runCLI(t, nil, "campaign", "resume", dir)
			if code != 2 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, dir) {
				t.Errorf("exit %d, %q; want 2 naming %s and %q", code, stderr, dir, tc.want)
			}
			if tc.name != "no manifest" && !strings.Contains(stderr, "campaign teardown "+dir) {
				t.Errorf("%q does not offer the teardown", stderr)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "no-such.incomplete")
		if code, _, stderr := runCLI(t, nil, "campaign", "resume", missing); code != 2 || !strings.Contains(stderr, missing+" is not a directory") {
			t.Errorf("exit %d, %q", code, stderr)
		}
	})
}

// A campaign still running holds DIR/.lock: resume exits 2 naming its
// pid, and changes nothing.
func TestResumeRefusesARunningCampaign(t *testing.T) {
	sim, dir, id, _ := killedInMeasure(t)
	f, err := os.OpenFile(filepath.Join(dir, rundir.LockFile), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, 4242)
	before := journalSteps(t, dir)
	code, _, stderr := runCLI(t, nil, "campaign", "resume", dir, "--url", sim.Config().URL, "-k")
	if want := "is still running (pid 4242)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, %q; want 2 and %q", code, stderr, want)
	}
	if after := journalSteps(t, dir); len(after) != len(before) {
		t.Errorf("a refused resume wrote to the journal: %v", after)
	}
	f.Close()
	// The lock released, teardown removes what the kill left.
	if code, _, stderr := runCLI(t, nil, "campaign", "teardown", dir, "--url", sim.Config().URL, "-k"); code != 0 {
		t.Fatalf("teardown: exit %d\n%s", code, stderr)
	}
	if n := len(campaignVMs(t, sim, id)); n != 0 {
		t.Errorf("after teardown the vcsim has %d VMs of campaign %s", n, id)
	}
}

// A prebuilt campaign killed in its measure phase resumes with each VM's
// data disk restored again (shut down, restored, up again) before the
// prepare step copies and checks the data: the stopped run had changed it.
func TestResumeRestoresPrebuiltDataAgain(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a campaign in a child process")
	}
	sim := startSimulator(t, 2)
	cfg := sim.Config()
	dataDir, res := t.TempDir(), t.TempDir()
	file := writeFile(t, "tiny.yaml", tinyCampaign+"data: {source: prebuilt, dir: "+dataDir+"}\n")
	where := []string{"--simulate", "--url", cfg.URL, "-k", "--ds", strings.Join(sim.Datastores(), ","), "--template", cfg.Template, "--pool", cfg.ResourcePool}
	code, stdout, stderr := runCLI(t, nil, append([]string{"campaign", "prepare-data", file}, where...)...)
	if code != 0 {
		t.Fatalf("prepare-data: exit %d\n%s", code, stderr)
	}
	id := strings.TrimSpace(stdout)
	killAt(t, "phase measure", append([]string{"campaign", "run", file, "--results-dir", res}, where...)...)
	dir := resultsDir(t, res)
	vmsLeft := len(campaignVMs(t, sim, strings.TrimSuffix(filepath.Base(dir), ".incomplete")))

	// Its data set gone: refused (exit 2), the VMs left for a later resume.
	key := filepath.Join(dataDir, id+".json")
	if err := os.Rename(key, key+".away"); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, nil, "campaign", "resume", dir, "--url", cfg.URL, "-k")
	if code != 2 || !strings.Contains(stderr, "no pre-built data set") {
		t.Fatalf("resume without its data set: exit %d\n%s", code, stderr)
	}
	if n := len(campaignVMs(t, sim, strings.TrimSuffix(filepath.Base(dir), ".incomplete"))); n != vmsLeft || n != 2 {
		t.Fatalf("a refused resume left %d of the %d VMs", n, vmsLeft)
	}
	if err := os.Rename(key+".away", key); err != nil {
		t.Fatal(err)
	}

	code, _, stderr = runCLI(t, nil, "campaign", "resume", dir, "--url", cfg.URL, "-k")
	if code != 0 || strings.Count(stderr, "db-test restored again from data set "+id) != 2 ||
		strings.Count(stderr, "sbtest2: want 500 rows, ids 1..500: ok") != 2 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if left := campaignVMs(t, sim, strings.TrimSuffix(filepath.Base(dir), ".incomplete")); len(left) != 0 {
		t.Errorf("after the resume the vcsim still has %v", left)
	}
}

// zombie says whether process pid has ended and is not yet reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := strings.LastIndexByte(string(b), ')')
	return err == nil && i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// A results directory whose campaign still runs (it holds .lock) is not
// reported as one that measured nothing: the report says it is running.
func TestReportOfARunningCampaign(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sysbench-2vm.incomplete")
	if err := os.CopyFS(dir, os.DirFS(fixtures+"sysbench-2vm")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, rundir.LockFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%d\n", os.Getpid())
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, nil, "report", dir)
	if code != 2 || !strings.Contains(stderr, fmt.Sprintf("is being written by a running campaign (pid %d)", os.Getpid())) {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}
