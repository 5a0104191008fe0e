package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vmbench/internal/testdb"
	"vmbench/oltp"
	"vmbench/vsphere"
)

// TestMain runs the tests, or, when a guest-driven campaign of a test has
// started this test binary as its agent ("vmbench agent run DIR", "vmbench
// agent stop DIR": the campaign uploads its own executable, which in a
// test is this binary), is that agent.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "agent" || os.Getenv(childEnv) == "1" {
		main()
	}
	testdb.Main(m)
}

// childEnv set to 1 makes this test binary vmbench itself (main, with
// its signal handling and exit status): a test that must bound how long
// a command runs starts it as a child (runChild).
const childEnv = "VMBENCH_TEST_AS_VMBENCH"

// runCLI runs vmbench in-process and returns its exit status and output.
func runCLI(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	return runCLIContext(context.Background(), t, env, args...)
}

// runCLIContext is runCLI under ctx: cancelling it is Ctrl-C.
func runCLIContext(ctx context.Context, t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	// The session cache (GOVC_PERSIST_SESSION, on by default as in govc)
	// goes to a temporary GOVMOMI_HOME, never the user's ~/.govmomi.
	home := sync.OnceValue(t.TempDir)
	a := &app{stdout: &out, stderr: &errb, getenv: func(k string) string {
		if v, ok := env[k]; ok || k != vsphere.EnvHome {
			return v
		}
		return home()
	}}
	err := run(ctx, a, args)
	if err != nil {
		errb.WriteString("vmbench: " + err.Error() + "\n")
	}
	return exitCode(err), out.String(), errb.String()
}

// tinyCampaign is a 2-VM sysbench campaign whose simulate block runs in a
// few seconds.
const tinyCampaign = `name: tiny
vms: {role: sysbench, count: 8}
database: {driver: mysql, port: 3306, user: sbtest, db: sbtest}
workload:
  tool: sysbench
  name: oltp_read_write
  flags: {tables: 100, table-size: 10000000, threads: 32, time: 1h, warmup-time: 2h}
simulate:
  vms: {count: 2}
  datastores: 2
  workload:
    flags: {tables: 2, table-size: 500, threads: 2, time: 2s, warmup-time: 1s, report-interval: 1s}
`

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// eachCampaignDatabase runs test as a subtest for each way a simulated
// campaign gets its databases: an embedded SQLite file per VM (dsn ""),
// and a database per VM on the test MariaDB server and on the test
// PostgreSQL server (dsn is its --db-dsn).
//
// The subtests run in parallel (with -parallel, by default as many as
// GOMAXPROCS): test must not change the process's environment or globals,
// and must look only for what its own campaign made (its results
// directory's name is its campaign's id).
func eachCampaignDatabase(t *testing.T, test func(t *testing.T, dsn string)) {
	t.Run("embedded sqlite", func(t *testing.T) { t.Parallel(); test(t, "") })
	t.Run("databases on a MariaDB server", func(t *testing.T) { t.Parallel(); test(t, serverDSN(t, testdb.Shared(t))) })
	t.Run("databases on a PostgreSQL server", func(t *testing.T) { t.Parallel(); test(t, postgresDSN(testdb.SharedPostgres(t))) })
}

// postgresDSN is the --db-dsn of the test PostgreSQL srv, as its
// superuser, without TLS.
func postgresDSN(srv *testdb.PGServer) string {
	return fmt.Sprintf("postgres://%s@%s:%d/?sslmode=disable", srv.User(), srv.Host(), srv.Port())
}

// serverDSN is the --db-dsn of the test server srv, as root.
func serverDSN(t *testing.T, srv *testdb.Server) string {
	t.Helper()
	return fmt.Sprintf("mysql://root@%s:%d/", srv.Host(), srv.Port())
}

// dsnArgs is "--db-dsn dsn", or nothing when dsn is empty.
func dsnArgs(dsn string) []string {
	if dsn == "" {
		return nil
	}
	return []string{"--db-dsn", dsn}
}

// runSimulatedCampaign runs 'campaign run file --simulate' with results
// under dir and the extra arguments, fails the test unless it exits 0,
// and returns its stdout and stderr.
func runSimulatedCampaign(t *testing.T, file, dir string, extra ...string) (string, string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, nil, append([]string{"campaign", "run", file, "--simulate", "--results-dir", dir}, extra...)...)
	if code != 0 {
		t.Fatalf("campaign run %s: exit %d\n%s", file, code, stderr)
	}
	return stdout, stderr
}

// mergedResult reads merged.json of the one results directory under
// parent, which is named name-<time>.
func mergedResult(t *testing.T, parent, name string) *oltp.Result {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(parent, name+"-*"))
	if len(dirs) != 1 {
		t.Fatalf("results dirs %v", dirs)
	}
	merged, err := oltp.ReadResultFile(filepath.Join(dirs[0], "merged.json"))
	if err != nil {
		t.Fatal(err)
	}
	return merged
}

func TestCampaignSimulateEndToEnd(t *testing.T) {
	t.Parallel()
	eachCampaignDatabase(t, func(t *testing.T, dsn string) {
		res := t.TempDir()
		stdout, stderr := runSimulatedCampaign(t, writeFile(t, "tiny.yaml", tinyCampaign), res, dsnArgs(dsn)...)
		for _, want := range []string{"sysbench-01", "sysbench-02", "aggregate", "TPS", "published", "exact"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("review table lacks %q:\n%s", want, stdout)
			}
		}
		if !strings.Contains(stderr, "destroyed 2 VMs") {
			t.Errorf("no teardown in the log:\n%s", stderr)
		}
		merged := mergedResult(t, res, "tiny")
		if merged.Parts != 2 || merged.Threads != 4 || merged.Precondition == nil || merged.Ops[0].Latency.Count == 0 {
			t.Errorf("merged result: parts %d threads %d precondition %v count %d", merged.Parts, merged.Threads,
				merged.Precondition != nil, merged.Ops[0].Latency.Count)
		}
		b, _ := json.Marshal(merged)
		if strings.Contains(string(b), "password") {
			t.Errorf("a password field reached the result")
		}
	})
}

func TestBadInputExitsTwoAndCreatesNothing(t *testing.T) {
	good := writeFile(t, "tiny.yaml", tinyCampaign)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"campaign", "run"}, "takes FILE"},
		{"missing file", []string{"campaign", "run", "nope.yaml", "--simulate"}, "nope.yaml does not exist"},
		{"unknown key", []string{"campaign", "run", writeFile(t, "k.yaml", tinyCampaign+"extra: 1\n"), "--simulate"}, "line 13"},
		{"bad workload flag", []string{"campaign", "run", writeFile(t, "f.yaml", strings.Replace(tinyCampaign, "threads: 2,", "threads: 0,", 1)), "--simulate"}, "--threads"},
		{"unknown workload", []string{"campaign", "run", writeFile(t, "w.yaml", strings.Replace(tinyCampaign, "name: oltp_read_write", "name: oltp_nope", 1)), "--simulate"}, "oltp_nope"},
		{"bad role", []string{"campaign", "run", writeFile(t, "r.yaml", strings.Replace(tinyCampaign, "role: sysbench", "role: web", 1)), "--simulate"}, "web"},
		{"dsn without simulate", []string{"campaign", "run", good, "--db-dsn", "mysql://root@127.0.0.1/"}, "--db-dsn: only with --simulate"},
		{"bad dsn", []string{"campaign", "run", good, "--simulate", "--db-dsn", "postgres://x"}, "--db-dsn"},
		{"no vCenter", []string{"campaign", "run", good}, "GOVC_URL"},
		{"unknown flag", []string{"campaign", "run", good, "--simulat"}, "unknown flag"},
		{"path in name", []string{"campaign", "run", writeFile(t, "n.yaml", strings.Replace(tinyCampaign, "name: tiny", "name: ../../escape", 1)), "--simulate"}, `name: "../../escape" is not valid`},
		{"connection flag in workload", []string{"campaign", "run", writeFile(t, "p.yaml", strings.Replace(tinyCampaign, "{tables: 100,", "{mysql-password: s3cret, tables: 100,", 1)), "--simulate"}, "--mysql-password: set by the campaign"},
		{"unsupported database", []string{"campaign", "run", writeFile(t, "d.yaml", strings.Replace(tinyCampaign, "driver: mysql", "driver: oracle", 1)), "--simulate"}, `database.driver: "oracle"`},
		{"bad real flags under simulate", []string{"campaign", "run", writeFile(t, "rf.yaml", strings.Replace(tinyCampaign, "threads: 32", "threads: -1", 1)), "--simulate"}, "workload.flags"},
		{"bad simulate flags", []string{"campaign", "run", writeFile(t, "sf.yaml", strings.Replace(tinyCampaign, "threads: 2,", "threads: -2,", 1)), "--simulate"}, "simulate.workload.flags"},
		{"two documents", []string{"campaign", "run", writeFile(t, "2.yaml", tinyCampaign+"---\nname: other\n"), "--simulate"}, "more than one YAML document"},
		{"empty file", []string{"campaign", "run", writeFile(t, "e.yaml", "# nothing\n"), "--simulate"}, "empty"},
		{"unknown key lists valid ones", []string{"campaign", "run", writeFile(t, "u.yaml", strings.Replace(tinyCampaign, "role: sysbench", "role: sysbench, colour: red", 1)), "--simulate"}, `unknown key "colour" in vms (valid: role, count`},
		{"placement without url in simulation", []string{"campaign", "run", good, "--simulate", "--ds", "nope"}, "need --url with --simulate"},
		{"dsn with a database", []string{"campaign", "run", good, "--simulate", "--db-dsn", "mysql://root@127.0.0.1:3306/somedb"}, "without a database"},
		{"dsn to a closed port", []string{"campaign", "run", good, "--simulate", "--db-dsn", "mysql://root@127.0.0.1:1/"}, "--db-dsn"},
		{"unknown command", []string{"campain"}, "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(tc.args, "--results-dir", dir)
			if tc.name == "unknown command" {
				args = tc.args
			}
			code, _, stderr := runCLI(t, nil, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("bad input created %v", entries)
			}
		})
	}
}

func TestResultsDirMustBeWritable(t *testing.T) {
	good := writeFile(t, "tiny.yaml", tinyCampaign)
	file := writeFile(t, "afile", "x")
	code, _, stderr := runCLI(t, nil, "campaign", "run", good, "--simulate", "--results-dir", file)
	if code != 2 || !strings.Contains(stderr, "--results-dir") {
		t.Errorf("exit %d, %q; want 2 naming --results-dir", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, nil, "--version")
	if code != 0 || !strings.Contains(out, version) {
		t.Fatalf("exit %d, %q", code, out)
	}
}
