package scenarios

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
)

// hookedSpec is the stub campaign (3 simulated VMs) with hooks: the
// before-prepare hook finds no data, the before-run hook reads what
// prepare wrote into the VM's database file (two directories up from the
// simulated guest's), and every hook echoes its VM's name.
const hookedSpec = stubSpec + `hooks:
  before-prepare: ["echo before-prepare $VMBENCH_VM", "test -e ../../$VMBENCH_VM.db && echo data || echo no data"]
  before-run: ["cat ../../$VMBENCH_VM.db", "echo before-run $VMBENCH_VM > hook-ran"]
  after-run: ["echo after-run $VMBENCH_VM; cat hook-ran"]
`

// readHook reads <dir>/hooks/<hook>/<vm>.txt.
func readHook(t *testing.T, dir string, hook spec.Hook, vm string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "hooks", string(hook), vm+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// logOrder fails the test unless each of want appears in log after the
// one before it.
func logOrder(t *testing.T, log string, want ...string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(log[at:], w)
		if i < 0 {
			t.Fatalf("log lacks %q after %q:\n%s", w, log[:at], log)
		}
		at += i + len(w)
	}
}

func TestCampaignHooks(t *testing.T) {
	sim := startSim(t)
	out, _, log, err := runStubSpec(t, t.Context(), &stubDriver{markLoaded: true}, sim, hookedSpec)
	if err != nil {
		t.Fatal(err)
	}
	for _, vm := range []string{"sysbench-01", "sysbench-02", "sysbench-03"} {
		bp := readHook(t, out.Dir, spec.HookBeforePrepare, vm)
		br := readHook(t, out.Dir, spec.HookBeforeRun, vm)
		ar := readHook(t, out.Dir, spec.HookAfterRun, vm)
		for _, want := range []string{
			"$ echo before-prepare $VMBENCH_VM\n# exit status 0, ", "\nbefore-prepare " + vm + "\n",
			"$ test -e ../../$VMBENCH_VM.db && echo data || echo no data\n# exit status 0, ", "\nno data\n",
		} {
			if !strings.Contains(bp, want) {
				t.Errorf("%s's before-prepare output lacks %q:\n%s", vm, want, bp)
			}
		}
		if want := "$ cat ../../$VMBENCH_VM.db\n# exit status 0, "; !strings.Contains(br, want) || !strings.Contains(br, "\nloaded\n") {
			t.Errorf("%s's before-run output lacks %q and the data prepare loaded:\n%s", vm, want, br)
		}
		if want := "\nafter-run " + vm + "\nbefore-run " + vm + "\n"; !strings.Contains(ar, want) {
			t.Errorf("%s's after-run output lacks %q:\n%s", vm, want, ar)
		}
	}
	logOrder(t, log, "a database per VM", "hook before-prepare [1/2] on 3 VMs", "hook before-prepare [2] sysbench-03: exit status 0",
		"prepare stub data", "prepared 3 databases", "hook before-run [1/2]", "hook before-run [2]",
		"run stub on 3 VMs from a common start", "hook after-run [1/1]", "hook after-run [1] sysbench-02: exit status 0",
		"collect and aggregate")
	runInfo, _ := os.ReadFile(filepath.Join(out.Dir, rundir.RunFile))
	for _, step := range spec.HookNames() {
		if !strings.Contains(string(runInfo), `"step": "`+string(hookStep(step))+`"`) {
			t.Errorf("the overhead in %s has no step %q:\n%s", rundir.RunFile, hookStep(step), runInfo)
		}
	}
	if vms := campaignVMs(t, sim); len(vms) != 0 {
		t.Errorf("%d VMs left after the campaign", len(vms))
	}
}

// failingHook fails on sysbench-02 only.
const failingHook = `hooks:
  before-run: ["echo start", "echo on $VMBENCH_VM; test $VMBENCH_VM != sysbench-02 || exit 3"]
  after-run: ["echo after"]
`

func TestCampaignHookFailureStops(t *testing.T) {
	sim := startSim(t)
	_, dir, log, err := runStubSpec(t, t.Context(), &stubDriver{}, sim, stubSpec+failingHook)
	if err == nil {
		t.Fatal("a failing hook did not fail the campaign")
	}
	msg := err.Error()
	for _, want := range []string{"hook before-run on sysbench-02",
		`command "echo on $VMBENCH_VM; test $VMBENCH_VM != sysbench-02 || exit 3" failed: exit status 3`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if strings.Contains(msg, "on sysbench-01") || strings.Contains(msg, "on sysbench-03") {
		t.Errorf("error names a VM whose hook passed: %v", err)
	}
	// The output named in the error is there, in the results directory
	// kept for it.
	m := regexp.MustCompile(`output in (\S+\.txt)\)`).FindStringSubmatch(msg)
	if m == nil || !strings.HasPrefix(m[1], dir) {
		t.Fatalf("error names no saved output under %s: %v", dir, err)
	}
	b, rerr := os.ReadFile(m[1])
	if rerr != nil || !strings.Contains(string(b), "# exit status 3, ") || !strings.Contains(string(b), "\non sysbench-02\n") {
		t.Errorf("saved output %s: %v\n%s", m[1], rerr, b)
	}
	if strings.Contains(log, "run stub on") || strings.Contains(log, "hook after-run") {
		t.Errorf("the campaign went on after the failing hook:\n%s", log)
	}
	if vms := campaignVMs(t, sim); len(vms) != 0 {
		t.Errorf("%d VMs left after a failed hook", len(vms))
	}
	if !strings.Contains(log, "teardown: destroying the VMs") {
		t.Errorf("no teardown in the log")
	}
}

func TestCampaignHookFailureContinues(t *testing.T) {
	sim := startSim(t)
	text := stubSpec + failingHook + "  on-failure: continue\n"
	out, _, log, err := runStubSpec(t, t.Context(), &stubDriver{}, sim, text)
	if err != nil {
		t.Fatal(err)
	}
	if got := readHook(t, out.Dir, spec.HookBeforeRun, "sysbench-02"); !strings.Contains(got, "# exit status 3, ") {
		t.Errorf("saved output lacks the exit status:\n%s", got)
	}
	if got := readHook(t, out.Dir, spec.HookBeforeRun, "sysbench-01"); !strings.Contains(got, "# exit status 0, ") {
		t.Errorf("saved output of a passing VM:\n%s", got)
	}
	logOrder(t, log, "warning: hook before-run on sysbench-02", "going on (hooks.on-failure: continue)",
		"run stub on 3 VMs", "hook after-run [1] sysbench-02: exit status 0")
	if out.Review == nil || out.Review.TPSSum != 60 {
		t.Errorf("the campaign did not measure every VM: %+v", out.Review)
	}
}

func TestCheckRefusesHooksWithoutGuestLogin(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, tc := range []struct{ name, extra, want string }{
		{"no guest block", "", "stub.yaml:6: hooks: their commands run in each VM's guest, and this campaign has no way to log in to the guests"},
		{"unreadable key", "guest: {user: root, key-file: /nonexistent/key}\n", "guest.key-file: /nonexistent/key cannot be read"},
		{"tools without a login", "guest: {via: tools}\n", "guest.via: tools needs guest.user and guest.password-env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cf, err := spec.Parse("stub.yaml", []byte(stubSpec+"hooks: {before-run: [sync]}\n"+tc.extra))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Check(cf, Options{Getenv: getenv})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// In simulation every guest is a local directory: nothing to log in to.
	cf, err := spec.Parse("stub.yaml", []byte(stubSpec+"hooks: {before-run: [sync]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Check(cf, Options{Simulate: true, Getenv: getenv}); err != nil {
		t.Errorf("Check in simulation: %v", err)
	}
}
