package spec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vmbench/vdbench" // registers the suite's tool
	"vmbench/vdbench/blockio"
	"vmbench/workload"
)

var goodSuite = fixture("suite.yaml")

func TestParseSuite(t *testing.T) {
	s, err := ParseSuite("suite.yaml", []byte(goodSuite))
	if err != nil {
		t.Fatal(err)
	}
	plans, err := s.Configs()
	if err != nil || len(plans) != 2 {
		t.Fatalf("plans %d, %v", len(plans), err)
	}
	run := plans[0].Config.(*vdbench.Config).Runs()[0]
	if plans[0].Profile != "4k-random-read" || len(run.SDs) != 2 || run.SDs[1].Lun != "/dev/nvme1n1" ||
		run.SDs[0].Threads != 128 || run.RD.Elapsed != 60*time.Second || len(run.RD.Curve) != 12 {
		t.Errorf("plan %+v", run)
	}
	if l := plans[0].Config.Bounds().Time; l != 13*(70*time.Second+blockio.PointGap) {
		t.Errorf("length %s", l)
	}

	dir := t.TempDir()
	sim := s.Simulated(dir)
	if !sim.SimulatedTargets || sim.Simulate != nil || sim.Size != "16m" || sim.Threads != 2 ||
		!slices.Equal(sim.Targets, []string{filepath.Join(dir, "target1.img"), filepath.Join(dir, "target2.img")}) {
		t.Fatalf("simulated %+v", sim)
	}
	plans, err = sim.Configs()
	if err != nil {
		t.Fatal(err)
	}
	run = plans[1].Config.(*vdbench.Config).Runs()[0]
	if rd := run.RD; rd.Elapsed != 2*time.Second || rd.Interval != time.Second || rd.Warmup != 0 || !slices.Equal(rd.Curve, []float64{50}) ||
		run.SDs[0].Size != 16<<20 || run.SDs[0].Threads != 2 {
		t.Errorf("simulated run %+v, sd %+v", rd, run.SDs[0])
	}
	if _, err := os.Stat(sim.Targets[0]); !os.IsNotExist(err) {
		t.Error("Simulated or Configs created a target")
	}
}

func TestParseSuiteErrors(t *testing.T) {
	for _, tc := range []struct{ name, edit, want string }{
		{"unknown key", goodSuite + "colour: red\n", `unknown key "colour" in the top level (valid: kind, name`},
		{"unknown simulate key", strings.Replace(goodSuite, "  targets: 2", "  target: 2", 1), `line 10: unknown key "target" in simulate`},
		{"unknown profile", strings.Replace(goodSuite, "[4k-random-read, 4k-random-write]\nthreads", "[4k-random-read, 4k-randomwrite]\nthreads", 1),
			`suite.yaml:6: profiles: no built-in vdbench profile "4k-randomwrite" (valid: 4k-random-read,`},
		{"unknown simulate profile", strings.Replace(goodSuite, "  profiles: [4k-random-read, 4k-random-write]", "  profiles: [sql-50-50]", 1),
			`suite.yaml:17: profiles: no built-in vdbench profile "sql-50-50"`},
		{"duplicate target", strings.Replace(goodSuite, "/dev/nvme1n1]", "/dev/nvme0n1]", 1), "suite.yaml:5: targets: /dev/nvme0n1 is listed twice"},
		{"no targets", strings.Replace(goodSuite, "targets: [/dev/nvme0n1, /dev/nvme1n1]", "targets: []", 1), "suite.yaml:5: targets: no targets"},
		{"wrong kind", strings.Replace(goodSuite, "kind: block-suite", "kind: oltp", 1), `suite.yaml:1: kind: "oltp" is not a suite kind (valid: block-suite)`},
		{"bad name", strings.Replace(goodSuite, "name: tiny-suite", "name: ../x", 1), `suite.yaml:2: name: "../x" is not valid`},
		{"threads", strings.Replace(goodSuite, "threads: 0", "threads: -4", 1), "suite.yaml:7: threads: -4 is not valid"},
		{"fractional seconds", strings.Replace(goodSuite, "elapsed: 2", "elapsed: 2.5", 1), `line 13: "2.5" is not a whole, non-negative number of seconds`},
		{"bad size", strings.Replace(goodSuite, "size: 16m", "size: 16q", 1), `line 11: size "16q" is not a size`},
		{"small size", strings.Replace(goodSuite, "size: 16m", "size: 4k", 1), `suite.yaml:11: simulate.size: 4k is too small (at least 1m)`},
		{"curve", strings.Replace(goodSuite, "curve: [50]", "curve: [50, 0]", 1), "suite.yaml:16: curve: point 0 is not valid"},
		{"override breaks a profile", strings.Replace(goodSuite, "force: false", "force: false\nelapsed: 30\ninterval: 7", 1),
			"suite.yaml:6: profile 4k-random-read: with the suite's elapsed, interval, warmup, curve or ioengine: 4k-random-read.vdb:"},
		{"two documents", goodSuite + "---\nkind: block-suite\n", "more than one YAML document"},
		{"empty", "# nothing\n", "suite.yaml: the suite file is empty"},
	} {
		_, err := ParseSuite("suite.yaml", []byte(tc.edit))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
	}
}

// TestLoadAny: the kind: picks the loader; an unknown kind names its line.
func TestLoadAny(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f, err := LoadAny(write("s.yaml", goodSuite))
	if err != nil || f.Kind != SuiteKind || f.Suite == nil || f.Campaign != nil {
		t.Fatalf("suite: %+v, %v", f, err)
	}
	bad := write("u.yaml", "name: x\nkind: file-suite\n")
	if _, err := LoadAny(bad); err == nil || !strings.Contains(err.Error(), bad+`:2: kind: "file-suite" is not known (valid: block-suite`) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := LoadAny(write("o.yaml", "name: x\ncolour: red\n")); err == nil || !strings.Contains(err.Error(), `o.yaml: line 2: unknown key "colour" in the top level`) {
		t.Errorf("VM campaign: %v", err)
	}
}

// A suite's overwrite-files: true reaches every profile as the tool's
// --overwrite-files (a guest's agent gets these flags); the simulated
// suite, on files it makes itself, runs without it.
func TestSuiteOverwriteFiles(t *testing.T) {
	s, err := ParseSuite("suite.yaml", []byte(goodSuite+"overwrite-files: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	plans, err := s.Configs()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		if got := workload.RecordedFlags(p.Config)["overwrite-files"]; got != "true" {
			t.Errorf("%s: flags carry overwrite-files %q, want true", p.Profile, got)
		}
	}
	sim := s.Simulated(t.TempDir())
	if plans, err = sim.Configs(); err != nil {
		t.Fatal(err)
	}
	if workload.RecordedFlags(plans[0].Config)["overwrite-files"] == "true" || sim.OverwriteFiles {
		t.Error("the simulated suite overwrites files it did not make")
	}
}
