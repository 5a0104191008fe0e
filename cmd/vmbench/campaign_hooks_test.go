package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
)

// hooks is a hooks: block for tinyCampaign: each hook echoes its VM's
// name; before-run also counts the bytes of the VM's SQLite files (two
// directories up from its simulated guest's), which prepare has loaded.
const hooks = `hooks:
  before-prepare: ["echo before-prepare $VMBENCH_VM"]
  before-run: ["echo before-run $VMBENCH_VM", "echo bytes $(cat ../../$VMBENCH_VM.db* | wc -c)"]
  after-run: ["echo after-run $VMBENCH_VM"]
`

// hookRecord matches a command's record in a saved hook output: its
// exit status and when it ran.
var hookRecord = regexp.MustCompile(`(?m)^# exit status (\d+), \S+, from (\S+) to (\S+)$`)

// hookTimes returns the exit statuses and the start and end of every
// command in a saved hook output.
func hookTimes(t *testing.T, text string) (codes []int, from, to []time.Time) {
	t.Helper()
	for _, m := range hookRecord.FindAllStringSubmatch(text, -1) {
		code, _ := strconv.Atoi(m[1])
		f, err1 := time.Parse(time.RFC3339Nano, m[2])
		e, err2 := time.Parse(time.RFC3339Nano, m[3])
		if err1 != nil || err2 != nil {
			t.Fatalf("bad times in %q", m[0])
		}
		codes, from, to = append(codes, code), append(from, f), append(to, e)
	}
	return codes, from, to
}

// TestCampaignHooksSimulated runs the tiny campaign with hooks, driven
// from the harness and from simulated guests: each VM's saved outputs hold
// its echoes and exit status 0, before-run ran after prepare loaded the
// data and ended before the VM's measure phase began, after-run began
// after it ended, and nothing is left behind.
func TestCampaignHooksSimulated(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"harness", "guest"} {
		t.Run(driver, func(t *testing.T) {
			name := "hooks" + driver
			text := strings.Replace(tinyCampaign, "name: tiny", "name: "+name, 1) + hooks
			res := t.TempDir()
			_, stderr := runSimulatedCampaign(t, writeFile(t, "h.yaml", text), res, "--driver", driver)
			dirs, _ := filepath.Glob(filepath.Join(res, name+"-*"))
			if len(dirs) != 1 {
				t.Fatalf("results dirs %v", dirs)
			}
			for _, vm := range []string{"sysbench-01", "sysbench-02"} {
				r, err := oltp.ReadResultFile(filepath.Join(dirs[0], "vms", vm+".json"))
				if err != nil {
					t.Fatal(err)
				}
				saved := map[string]string{}
				for _, hook := range []string{"before-prepare", "before-run", "after-run"} {
					b, err := os.ReadFile(filepath.Join(dirs[0], "hooks", hook, vm+".txt"))
					if err != nil {
						t.Fatal(err)
					}
					saved[hook] = string(b)
					if !strings.Contains(saved[hook], "\n"+hook+" "+vm+"\n") {
						t.Errorf("%s %s: no echo:\n%s", vm, hook, b)
					}
					if codes, _, _ := hookTimes(t, saved[hook]); len(codes) == 0 || codes[0] != 0 {
						t.Errorf("%s %s: exit statuses %v, want 0:\n%s", vm, hook, codes, b)
					}
				}
				m := regexp.MustCompile(`\nbytes (\d+)\n`).FindStringSubmatch(saved["before-run"])
				if n, _ := strconv.Atoi(m[1]); m == nil || n < 50000 {
					t.Errorf("%s: before-run found %v bytes of data, want the 2 x 500 rows prepare loaded:\n%s", vm, m, saved["before-run"])
				}
				if _, _, to := hookTimes(t, saved["before-run"]); len(to) != 2 || !to[1].Before(r.Start) {
					t.Errorf("%s: before-run ended at %v, not before the measure phase began at %v", vm, to, r.Start)
				}
				if _, from, _ := hookTimes(t, saved["after-run"]); len(from) != 1 || !from[0].After(r.End) {
					t.Errorf("%s: after-run began at %v, not after the measure phase ended at %v", vm, from, r.End)
				}
			}
			if !strings.Contains(stderr, "destroyed 2 VMs") {
				t.Errorf("no teardown in the log:\n%s", stderr)
			}
			if left := campaignTemps(res); len(left) != 0 {
				t.Errorf("left %v", left)
			}
		})
	}
}

// TestCampaignHooksBadInput: a bad hooks: block exits 2 naming the file
// and line, and creates nothing.
func TestCampaignHooksBadInput(t *testing.T) {
	for _, tc := range []struct{ name, hooks, want string }{
		{"empty command", "hooks:\n  before-run: [sync, '']\n", "h.yaml:14: hooks.before-run: command 2 is empty"},
		{"unknown hook", "hooks:\n  before-load: [sync]\n", `h.yaml: line 14: unknown key "before-load" in hooks`},
		{"no guest login", "hooks:\n  after-run: [sync]\n", "h.yaml:13: hooks: their commands run in each VM's guest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"campaign", "run", writeFile(t, "h.yaml", tinyCampaign+tc.hooks), "--results-dir", dir}
			if tc.name != "no guest login" {
				args = append(args, "--simulate")
			}
			code, _, stderr := runCLI(t, map[string]string{"GOVC_URL": "https://127.0.0.1:1/sdk"}, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("bad input created %v", entries)
			}
		})
	}
}
