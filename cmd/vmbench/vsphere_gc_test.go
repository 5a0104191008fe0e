package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vmbench/scenarios/teardown"
	"vmbench/vsphere"
)

// gc on a vcsim named by --url, with one VM of each kind of campaign: a
// finished one, an incomplete one nobody runs, a running one (its lock
// held) and one without a results directory. Bad flags remove nothing;
// --dry-run lists and removes nothing; --older-than spares the young;
// --campaign restricts; a plain gc removes all but the running one's.
func TestVSphereGCOnVcsim(t *testing.T) {
	sim, err := vsphere.StartSimulator(t.Context(), vsphere.SimOptions{Datastores: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	results := t.TempDir()
	conn := []string{"--url", sim.Config().URL, "-k"}
	cli := func(want int, args ...string) (string, string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, nil, append(append([]string{"vsphere"}, args...), conn...)...)
		if code != want {
			t.Fatalf("vsphere %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, stdout, stderr)
		}
		return stdout, stderr
	}
	for _, c := range []string{"fin", "inc", "run", "gone"} {
		cli(0, "provision", "--role", "sysbench", "--count", "1", "--template", vsphere.SimTemplate, "--ds", "LocalDS_0",
			"--pool", "DC0_C0/Resources", "--campaign", c+"-1", "--prefix", c, "--power-on=false")
	}
	for _, d := range []string{"fin-1", "inc-1.incomplete", "run-1.incomplete"} {
		if err := os.Mkdir(filepath.Join(results, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	release, err := teardown.LockCampaign(results, "run-1") // as the running campaign holds it
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	left := func() string {
		t.Helper()
		stdout, _ := cli(0, "ls")
		return strings.Join(regexp.MustCompile(`(?m)^(\S+)-1 `).FindAllString(stdout, -1), "")
	}

	for _, bad := range [][]string{
		{"--older-than", "3d", "--results-dir", results},
		{"--older-than", "-5m", "--results-dir", results},
		{"--campaign", "a b", "--results-dir", results},
		{"--results-dir", filepath.Join(results, "missing")},
		{"--bogus"},
		{"--simulate"},
	} {
		_, stderr := cli(2, append([]string{"gc"}, bad...)...)
		if !strings.Contains(stderr, strings.TrimLeft(bad[0], "-")) {
			t.Errorf("gc %v: the error does not name the flag: %s", bad, stderr)
		}
	}
	if got := left(); got != "fin-1 gone-1 inc-1 run-1 " {
		t.Fatalf("after bad input the VMs of %q are left, want all four", got)
	}

	stdout, _ := cli(0, "gc", "--dry-run", "--results-dir", results)
	t.Logf("gc --dry-run:\n%s", stdout)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^VM +CAMPAIGN +CREATED +CAMPAIGN STATE +ACTION +WHY$`),
		regexp.MustCompile(`(?m)^fin-01 +fin-1 +\d{4}-\d\d-\d\dT\S+Z +finished +would remove +the campaign finished \(`),
		regexp.MustCompile(`(?m)^inc-01 +inc-1 +\S+ +incomplete, not running +would remove +the campaign stopped unfinished`),
		regexp.MustCompile(`(?m)^gone-01 +gone-1 +\S+ +no results directory +would remove +no results directory of the campaign$`),
		regexp.MustCompile(`(?m)^run-01 +run-1 +\S+ +running +keep +the campaign runs: pid \d+ holds \S+run-1.incomplete/.lock$`),
		regexp.MustCompile(`(?m)^dry run: 3 of 4 VM\(s\) would be removed, of 3 campaign\(s\); nothing was removed$`),
	} {
		if !want.MatchString(stdout) {
			t.Errorf("gc --dry-run output lacks %s:\n%s", want, stdout)
		}
	}
	if got := left(); got != "fin-1 gone-1 inc-1 run-1 " {
		t.Fatalf("after --dry-run the VMs of %q are left, want all four", got)
	}

	if stdout, _ := cli(0, "gc", "--older-than", "1h", "--results-dir", results); !strings.Contains(stdout, "removed 0 of 0 VM(s)") ||
		!strings.Contains(stdout, "not older than --older-than 1h0m0s") {
		t.Errorf("gc --older-than 1h:\n%s", stdout)
	}
	if stdout, _ := cli(0, "gc", "--campaign", "fin-1", "--results", results); !strings.Contains(stdout, "removed 1 of 1 VM(s) of 1 campaign(s)") {
		t.Errorf("gc --campaign fin-1:\n%s", stdout)
	}
	if got := left(); got != "gone-1 inc-1 run-1 " {
		t.Fatalf("after gc --campaign fin-1 the VMs of %q are left", got)
	}
	if stdout, _ := cli(0, "gc", "--results-dir", results); !strings.Contains(stdout, "removed 2 of 2 VM(s) of 2 campaign(s)") {
		t.Errorf("gc:\n%s", stdout)
	}
	if got := left(); got != "run-1 " {
		t.Fatalf("after gc the VMs of %q are left, want only the running campaign's", got)
	}
}
