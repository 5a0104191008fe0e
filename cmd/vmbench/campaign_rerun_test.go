package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/internal/testdb"
)

// resultsDir returns the one results directory under parent.
func resultsDir(t *testing.T, parent string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(parent, "*"))
	if len(dirs) != 1 {
		t.Fatalf("results dirs %v, want one", dirs)
	}
	return dirs[0]
}

// yamlBody is a campaign.yaml from its first key on: without the
// comment lines that name the run (id, time, host).
func yamlBody(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "\nname: ")
	if !ok {
		t.Fatalf("%s has no name: key:\n%s", path, b)
	}
	return body
}

// The campaign.yaml of a results directory runs again as it is, on
// SQLite (it used to say database: {driver: sqlite}, which campaign run
// refused) and on the --db-dsn server, which it names without the
// password, and the rerun records the same campaign.
func TestResultsCampaignYAMLReruns(t *testing.T) {
	for _, tc := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"embedded sqlite", nil},
		{"databases on a MariaDB server", func(t *testing.T) string {
			srv := testdb.Shared(t)
			return fmt.Sprintf("mysql://root@%s:%d/", srv.Host(), srv.Port())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, second := t.TempDir(), t.TempDir()
			args := []string{"campaign", "run", writeFile(t, "tiny.yaml", tinyCampaign), "--simulate", "--results-dir", first}
			if tc.dsn != nil {
				args = append(args, "--db-dsn", tc.dsn(t))
			}
			if code, _, stderr := runCLI(t, nil, args...); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			ran := filepath.Join(resultsDir(t, first), "campaign.yaml")
			code, _, stderr := runCLI(t, nil, "campaign", "run", ran, "--simulate", "--results-dir", second)
			if code != 0 {
				t.Fatalf("rerun of %s: exit %d\n%s", ran, code, stderr)
			}
			want, got := yamlBody(t, ran), yamlBody(t, filepath.Join(resultsDir(t, second), "campaign.yaml"))
			if got != want {
				t.Errorf("the rerun ran a different campaign:\nfirst:\n%s\nrerun:\n%s", want, got)
			}
			if strings.Contains(want, "sqlite") {
				t.Errorf("campaign.yaml names sqlite as the database driver:\n%s", want)
			}
			if tc.dsn != nil && !strings.Contains(want, "db-server: "+tc.dsn(t)) {
				t.Errorf("campaign.yaml does not name the database server %s:\n%s", tc.dsn(t), want)
			}
		})
	}
}

// A campaign whose run would never end, and counts out of bounds, are
// refused with the file and line, exit 2, nothing created.
func TestCampaignBoundsNameFileAndLine(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		want           []string
	}{
		{"simulated time 0", "time: 2s,", "time: 0,", []string{"tiny.yaml:12:", "simulate.workload.flags", "never end"}},
		{"real time 0", "time: 1h,", "time: 0,", []string{"tiny.yaml:7:", "workload.flags", "never end"}},
		{"parallel", "count: 8}", "count: 8, parallel: 1000}", []string{"tiny.yaml:2:", "vms.parallel: 1000", "up to 64"}},
		{"ip timeout", "count: 8}", "count: 8, ip-timeout: 1000h}", []string{"tiny.yaml:2:", "vms.ip-timeout", "24h0m0s"}},
		{"vm count", "count: 8}", "count: 100000}", []string{"tiny.yaml:2:", "vms.count: 100000", "1..256"}},
		{"simulated vm count", "vms: {count: 2}", "vms: {count: 0}", []string{"tiny.yaml:9:", "simulate.vms.count: 0"}},
		{"simulated hosts", "datastores: 2", "datastores: 2\n  hosts: 1000", []string{"tiny.yaml:11:", "simulate.hosts: 1000", "up to 64"}},
		{"simulated datastores", "datastores: 2", "datastores: 65", []string{"tiny.yaml:10:", "simulate.datastores: 65"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(tinyCampaign, tc.from, tc.to, 1)
			if body == tinyCampaign {
				t.Fatalf("%q is not in the campaign", tc.from)
			}
			dir := t.TempDir()
			code, _, stderr := runCLI(t, nil, "campaign", "run", writeFile(t, "tiny.yaml", body), "--simulate", "--results-dir", dir)
			if code != 2 {
				t.Errorf("exit %d, want 2: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a refused campaign created %v", entries)
			}
		})
	}
}
