package main

import (
	"path/filepath"
	"strings"
	"testing"

	"vmbench/internal/golden"
	"vmbench/internal/testdb"
	"vmbench/oltp"
)

// tinyTPCCCampaign is a 2-VM TPC-C campaign whose simulate block loads one
// warehouse per VM and runs ten terminals on two connections for seconds.
const tinyTPCCCampaign = `name: tiny-tpcc
vms: {role: sqlserver, count: 8}
database: {driver: sqlserver, port: 1433, user: sa, db: tpcc}
workload:
  tool: tpcc
  name: tpcc
  flags: {warehouses: 1500, terminals: 15000, conns: 200, wait-scale: 0.23, time: 30m, warmup-time: 2h30m}
simulate:
  vms: {count: 2}
  datastores: 2
  workload:
    flags: {warehouses: 1, terminals: 10, conns: 2, wait-scale: 0, time: 3s, warmup-time: 1s, report-interval: 1s}
`

// tpccCampaign runs the tiny TPC-C campaign with extra arguments and
// checks the review table and the merged Result.
func tpccCampaign(t *testing.T, extra ...string) {
	res := t.TempDir()
	stdout, _ := runSimulatedCampaign(t, writeFile(t, "tiny-tpcc.yaml", tinyTPCCCampaign), res, extra...)
	for _, want := range []string{"sqlserver-01", "sqlserver-02", "tpmC", "NOPM", "published", "exact", "terminal-driven, 10 terminals sharing 2 connections",
		"Simulated: VMs in an in-process vSphere simulator"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("review table lacks %q:\n%s", want, stdout)
		}
	}
	merged := mergedResult(t, res, "tiny-tpcc")
	no := merged.Op("new_order")
	if merged.Parts != 2 || merged.Terminals != 20 || merged.Threads != 4 || no == nil || no.Latency.Count == 0 || no.Intended == nil {
		t.Errorf("merged result: parts %d terminals %d connections %d new_order %+v", merged.Parts, merged.Terminals, merged.Threads, no)
	}
	// sum(d_next_o_id) is read at both edges of the measured window with
	// no transaction in flight, so it changes by exactly the New-Orders
	// the client counted as committed in the window, on every VM.
	committed := no.Latency.Count - merged.Counters["new_order.rollbacks"]
	if d, ok := merged.Counters["d_next_o_id.delta"]; !ok || d != committed {
		t.Errorf("NOPM delta %d (read: %v) for %d committed New-Orders; want them equal", d, ok, committed)
	}
}

func TestTPCCCampaignSimulateSQLite(t *testing.T) {
	if golden.RaceEnabled() {
		t.Skip("modernc.org/sqlite under the race detector takes minutes per warehouse; make test runs the SQLite tests without -race")
	}
	tpccCampaign(t)
}

// TestTPCCCampaignSimulateMariaDBNoRace: loading a warehouse per VM
// takes minutes under -race; the tpcc package race-tests its terminals
// and loader against MariaDB, and the sysbench campaigns the campaign's
// own concurrency.
func TestTPCCCampaignSimulateMariaDBNoRace(t *testing.T) {
	t.Parallel()
	golden.SkipUnderRace(t, "loading a TPC-C warehouse per VM under the race detector takes minutes")
	tpccCampaign(t, dsnArgs(serverDSN(t, testdb.Shared(t)))...)
}

func TestTPCCBadInputExitsTwo(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"threads with terminals", []string{"tpcc", "run", "--threads", "4", "--terminals", "10"}, "--threads: it is the no-wait shortcut"},
		{"negative warehouses", []string{"tpcc", "prepare", "--warehouses", "0"}, "--warehouses: 0 is not valid"},
		{"bad wait scale", []string{"tpcc", "run", "--wait-scale", "fast"}, `"fast" is not a factor`},
		{"unknown driver", []string{"tpcc", "check", "--db-driver", "oracle"}, `unknown database driver "oracle"`},
		{"unknown flag", []string{"tpcc", "run", "--tables", "4"}, "unknown flag: --tables"},
		{"unknown subcommand", []string{"tpcc", "prepar"}, `unknown command "prepar"`},
		{"huge wait scale", []string{"tpcc", "run", "--wait-scale", "1e9"}, "--wait-scale: 1e+09 is not valid"},
		{"terminals beyond the limit", []string{"tpcc", "run", "--terminals", "2000000000"}, "--terminals: 2000000000 is not valid"},
		{"time below a second", []string{"tpcc", "run", "--time", "0.0000001"}, "--time: 100ns is not valid"},
		{"argument", []string{"tpcc", "cleanup", "extra"}, "extra"},
		{"result file in a missing directory", []string{"tpcc", "run", "--result-file", "/nonexistent/dir/r.json"}, "--result-file"},
		{"connection flag in a campaign", []string{"campaign", "run", "CAMPAIGN", "--simulate"}, "--password: set by the campaign"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args[len(args)-2] == "CAMPAIGN" {
				args[len(args)-2] = writeFile(t, "c.yaml", strings.Replace(tinyTPCCCampaign, "{warehouses: 1500,", "{password: s3cret, warehouses: 1500,", 1))
			}
			code, _, stderr := runCLI(t, nil, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// TestTPCCCommandsSQLite runs prepare, run with --result-file, check and
// cleanup from the command line on an SQLite file.
func TestTPCCCommandsSQLite(t *testing.T) {
	if golden.RaceEnabled() {
		t.Skip("modernc.org/sqlite under the race detector takes minutes per warehouse; make test runs the SQLite tests without -race")
	}
	dir := t.TempDir()
	db := []string{"--db-driver", "sqlite", "--sqlite-path", filepath.Join(dir, "tpcc.db")}
	if code, _, stderr := runCLI(t, nil, append([]string{"tpcc", "prepare"}, db...)...); code != 0 || !strings.Contains(stderr, "Loaded 1 warehouse: ") {
		t.Fatalf("prepare: exit %d\n%s", code, stderr)
	}
	// A flag that does not fit the load is a bad flag: exit 2, nothing run.
	for _, sub := range []string{"run", "prepare"} {
		code, stdout, stderr := runCLI(t, nil, append([]string{"tpcc", sub, "--warehouses", "2"}, db...)...)
		if code != 2 || !strings.Contains(stderr, "--warehouses") || stdout != "" {
			t.Errorf("%s --warehouses 2 on a load of 1: exit %d, want 2 naming --warehouses\n%s%s", sub, code, stdout, stderr)
		}
	}
	file := filepath.Join(dir, "run.json")
	code, stdout, stderr := runCLI(t, nil, append([]string{"tpcc", "run", "--threads", "2", "--events", "300", "--time", "0", "--result-file", file}, db...)...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	res, err := oltp.ReadResultFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, op := range res.Ops {
		n += op.Latency.Count
	}
	if n != 300 || res.Workload != "tpcc" || !strings.Contains(stdout, "tpmC: ") {
		t.Errorf("result: %d transactions of %s; want 300 of tpcc\n%s", n, res.Workload, stdout)
	}
	if code, stdout, stderr := runCLI(t, nil, append([]string{"tpcc", "check"}, db...)...); code != 0 || !strings.Contains(stdout, "3.3.2.12") {
		t.Errorf("check: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := runCLI(t, nil, append([]string{"tpcc", "cleanup"}, db...)...); code != 0 || !strings.Contains(stdout, "Dropped 11 table(s)") {
		t.Errorf("cleanup: exit %d\n%s", code, stdout)
	}
}
