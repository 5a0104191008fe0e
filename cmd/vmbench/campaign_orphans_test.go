//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// processesWith lists the live processes whose command line contains
// marker (/proc/<pid>/cmdline; a zombie's is empty).
func processesWith(marker string) []int {
	var pids []int
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range cmdlines {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte(marker)) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// gone waits, at most bound, until no live process's command line holds
// marker, polling; it returns the ones still there.
func gone(marker string, bound time.Duration) []int {
	deadline := time.Now().Add(bound)
	for {
		left := processesWith(marker)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond) // polling a state, not timing anything
	}
}

// A hook's background process (`sleep ... &` in before-run, still there
// at after-run) ends with the simulated guest that ran it, as it would
// with a VM: after the campaign no process of it is left, whether the hooks ran in guests of their own
// (driver harness) or in the agents' (driver guest). The sleep's
// fractional seconds make its command line the test's own marker.
func TestCampaignHookBackgroundProcessesEndWithTheGuests(t *testing.T) {
	t.Parallel()
	for i, driver := range []string{"harness", "guest"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			marker := fmt.Sprintf("300.%d%d", time.Now().UnixNano()%1e9, i)
			t.Cleanup(func() {
				for _, pid := range processesWith(marker) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			name := "orphans" + driver
			text := strings.Replace(tinyCampaign, "name: tiny", "name: "+name, 1) +
				"hooks:\n  before-run: [\"sleep " + marker + " > /dev/null 2>&1 & echo $! > bg.pid\"]\n" +
				"  after-run: [\"kill -0 $(cat bg.pid)\"]\n" // it outlived its hook command
			runSimulatedCampaign(t, writeFile(t, "o.yaml", text), t.TempDir(), "--driver", driver)
			// The kill is sent before the campaign returns; the processes
			// end as the kernel delivers it.
			if left := gone(marker, 30*time.Second); len(left) != 0 {
				t.Errorf("after the campaign the hook's background processes %v still run (sleep %s)", left, marker)
			}
		})
	}
}
