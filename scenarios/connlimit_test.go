package scenarios

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/scenarios/spec"
)

// lowFileLimit sets the process's open-file limit, as the campaign sees
// it, to n for the test.
func lowFileLimit(t *testing.T, n uint64) {
	old := openFileLimit
	openFileLimit = func() uint64 { return n }
	t.Cleanup(func() { openFileLimit = old })
}

// parsed is the campaign file text, parsed as sysbench-8vm.yaml.
func parsed(t *testing.T, text string) *spec.Campaign {
	t.Helper()
	cf, err := spec.Parse("sysbench-8vm.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return cf
}

// TestCheckRefusesConnectionsBeyondFileLimit: 8 VMs x 5000 threads is
// 40,000 connections from this one process; with 20,000 open files the
// run used to fail at thread 958 after provisioning and prepare. Check
// refuses it, naming the threads line of the simulate block.
func TestCheckRefusesConnectionsBeyondFileLimit(t *testing.T) {
	lowFileLimit(t, 20000)
	b, err := os.ReadFile("sysbench-8vm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "      threads: 4\n", "      threads: 5000\n", 1)
	line := 1 + strings.Count(text[:strings.Index(text, "threads: 5000")], "\n")
	cf := parsed(t, text)
	_, err = Check(cf, Options{Simulate: true, Driver: spec.DriverHarness, Getenv: func(string) string { return "" }})
	want := "sysbench-8vm.yaml:" + strconv.Itoa(line) + ": simulate.workload.flags.threads: 8 VMs x 5000 connections (sqlite) need about 80064 open files"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "may open 20000 (ulimit -n); raise the limit (ulimit -n 80064) or use fewer threads or VMs") {
		t.Fatalf("err = %v\nwant %q and the ulimit -n to give", err, want)
	}

	// The same spec fits with 4 threads, and when the limit is unknown.
	if _, err := Check(parsed(t, string(b)), Options{Simulate: true, Getenv: func(string) string { return "" }}); err != nil {
		t.Errorf("4 threads x 8 VMs: %v", err)
	}
	lowFileLimit(t, 0)
	if _, err := Check(cf, Options{Simulate: true, Getenv: func(string) string { return "" }}); err != nil {
		t.Errorf("unknown limit: %v", err)
	}
}

// threadsConfig is the stub with connections: Bounds tells its threads.
type threadsConfig struct{ stubConfig }

func (c *threadsConfig) Bounds() oltp.RunConfig {
	return oltp.RunConfig{Time: time.Second, Threads: c.threads}
}

// TestConnLimitNamesTheFlag: the refusal names the threads key of the
// flags the run takes, else their flags block; a --db-dsn server counts
// a file per connection, database.driver outside simulation.
func TestConnLimitNamesTheFlag(t *testing.T) {
	lowFileLimit(t, 120)
	for _, tc := range []struct {
		spec string
		opts Options
		want string // "" for no error
	}{
		{stubSpec, Options{}, "stub.yaml:4: workload.flags.threads: 4 VMs x 50 connections (mysql) need about 264 open files"},
		{stubSpec, Options{Simulate: true}, "stub.yaml:4: workload.flags.threads: 3 VMs x 50 connections (sqlite) need about 364"},
		{strings.Replace(stubSpec, "{threads: 1}", "{}", 1), Options{}, "stub.yaml:4: workload.flags: 4 VMs x 50"},
		{strings.Replace(stubSpec, "{count: 3}}", "{count: 3}, workload: {flags: {threads: 50}}}", 1), Options{Simulate: true}, "stub.yaml:5: simulate.workload.flags.threads: 3 VMs"},
		{stubSpec, Options{Simulate: true, DBServer: &dialect.Config{Driver: dialect.MySQL}}, "3 VMs x 50 connections (mysql) need about 214"},
		{strings.Replace(stubSpec, "count: 4", "count: 1", 1), Options{}, ""},
	} {
		cf, err := spec.Parse("stub.yaml", []byte(tc.spec))
		if err != nil {
			t.Fatal(err)
		}
		cfg := &threadsConfig{stubConfig{threads: 50}}
		err = checkConnLimit(cf, tc.opts, newEnvironment(tc.opts), cfg)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %+v: err = %v, want %q", tc.spec, tc.opts, err, tc.want)
		}
	}
}

// TestCheckLayoutOptions: the vms: block's layout options reach the
// layout Check returns, and a combination vSphere refuses (latency
// sensitivity high without a full memory reservation) or cores that do
// not divide the vCPUs is refused with the file and line of vms.role.
func TestCheckLayoutOptions(t *testing.T) {
	b, err := os.ReadFile("sysbench-8vm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Simulate: true, Getenv: func(string) string { return "" }}
	add := func(lines string) *spec.Campaign {
		return parsed(t, strings.Replace(string(b), "  role: sysbench\n", "  role: sysbench\n"+lines, 1))
	}
	k, err := Check(add("  memory-reservation: full\n  latency-sensitivity: high\n  cores-per-socket: 8\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if l := k.Layout(); !l.ReserveMemory || l.LatencySensitivity != "high" || l.CoresPerSocket != 8 || l.SwapGB() != 0 {
		t.Fatalf("layout %+v", l)
	}
	// Cores that do not divide the role's vCPUs: at the key's own line.
	text := strings.Replace(string(b), "  role: sysbench\n", "  role: sysbench\n  cores-per-socket: 5\n", 1)
	line := 1 + strings.Count(text[:strings.Index(text, "cores-per-socket: 5")], "\n")
	_, err = Check(parsed(t, text), opts)
	want := "sysbench-8vm.yaml:" + strconv.Itoa(line) + ": vms.cores-per-socket: 5 does not divide the sysbench role's 16 vCPUs"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	// High latency sensitivity without the reservation: refused by Parse.
	if _, err := spec.Parse("x.yaml", []byte(strings.Replace(string(b), "  role: sysbench\n", "  role: sysbench\n  latency-sensitivity: high\n", 1))); err == nil ||
		!strings.Contains(err.Error(), "vms.latency-sensitivity: high needs memory-reservation: full") {
		t.Errorf("latency high alone: %v", err)
	}
}
