package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/dialect"
)

// TestCampaignOpenFilesBeyondLimit: sysbench-8vm.yaml simulated with
// 5000 threads is 8 x 5000 SQLite connections from this one process. With
// ulimit -n 20000 it used to provision the VMs, prepare their data and
// fail at thread 958 with exit 1, leaving an empty results directory; now
// it exits 2 naming the threads line and the ulimit -n to give, and
// creates nothing.
func TestCampaignOpenFilesBeyondLimit(t *testing.T) {
	need := dialect.FilesNeeded(dialect.SQLite, 8*5000)
	if limit := dialect.ProcessFileLimit(); limit == 0 || limit >= need {
		t.Skipf("this process may open %d files (%d are needed to be refused)", limit, need)
	}
	b, err := os.ReadFile("../../scenarios/sysbench-8vm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "      threads: 4\n", "      threads: 5000\n", 1)
	line := fmt.Sprintf("sysbench-8vm.yaml:%d:", 1+strings.Count(text[:strings.Index(text, "threads: 5000")], "\n"))
	spec := writeFile(t, "sysbench-8vm.yaml", text)
	res := filepath.Join(t.TempDir(), "results")
	code, stdout, stderr := runCLI(t, nil, "campaign", "run", spec, "--simulate", "--driver", "harness", "--results-dir", res)
	if code != 2 || !strings.Contains(stderr, line+" simulate.workload.flags.threads: 8 VMs x 5000 connections (sqlite) need about 80064 open files") ||
		!strings.Contains(stderr, "(ulimit -n 80064)") {
		t.Errorf("exit %d, want 2 naming the threads line and ulimit -n:\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(res); !os.IsNotExist(err) {
		t.Errorf("the results directory was created: %v", err)
	}
	// Driven from the guests, each agent opens one VM's connections.
	perAgent := dialect.FilesNeeded(dialect.SQLite, 10000)
	if dialect.ProcessFileLimit() >= perAgent {
		return
	}
	text = strings.Replace(string(b), "      threads: 4\n", "      threads: 10000\n", 1)
	code, stdout, stderr = runCLI(t, nil, "campaign", "run", writeFile(t, "sysbench-8vm.yaml", text), "--simulate", "--results-dir", res)
	if want := fmt.Sprintf("%s simulate.workload.flags.threads: 10000 connections (sqlite) need about %d open files in each VM's agent process", line, perAgent); code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("driver guest: exit %d, want 2 and %q:\n%s%s", code, want, stdout, stderr)
	}
}
