//go:build linux

package vdbench

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
)

const goodSuite = `kind: block-suite
name: tiny-suite
description: two corners
source: the README, block suite
targets: [/dev/nvme0n1, /dev/nvme1n1]
profiles: [4k-random-read, 4k-random-write]
threads: 0
force: false
simulate:
  targets: 2
  size: 16m
  threads: 2
  elapsed: 2
  interval: 1
  warmup: 0
  curve: [50]
  profiles: [4k-random-read, 4k-random-write]
`

func TestParseSuite(t *testing.T) {
	s, err := ParseSuite("suite.yaml", []byte(goodSuite))
	if err != nil {
		t.Fatal(err)
	}
	plans, err := s.Plans()
	if err != nil || len(plans) != 2 {
		t.Fatalf("plans %d, %v", len(plans), err)
	}
	p := plans[0]
	if p.Profile.Name != "4k-random-read" || len(p.Run.SDs) != 2 || p.Run.SDs[1].Lun != "/dev/nvme1n1" ||
		p.Run.SDs[0].Threads != 128 || p.Run.RD.Elapsed != 60*time.Second || len(p.Run.RD.Curve) != 12 {
		t.Errorf("plan %+v", p.Run)
	}
	if p.Points() != 13 || p.Length() != 13*(70*time.Second+startDelay) {
		t.Errorf("points %d length %s", p.Points(), p.Length())
	}

	dir := t.TempDir()
	sim := s.Simulated(dir)
	if !sim.SimulatedTargets || sim.Simulate != nil || sim.Size != 16<<20 || sim.Threads != 2 ||
		!slices.Equal(sim.Targets, []string{filepath.Join(dir, "target1.img"), filepath.Join(dir, "target2.img")}) {
		t.Fatalf("simulated %+v", sim)
	}
	plans, err = sim.Plans()
	if err != nil {
		t.Fatal(err)
	}
	rd := plans[1].Run.RD
	if rd.Elapsed != 2*time.Second || rd.Interval != time.Second || rd.Warmup != 0 || !slices.Equal(rd.Curve, []float64{50}) ||
		plans[1].Run.SDs[0].Size != 16<<20 || plans[1].Run.SDs[0].Threads != 2 {
		t.Errorf("simulated run %+v, sd %+v", rd, plans[1].Run.SDs[0])
	}
	if _, err := os.Stat(sim.Targets[0]); !os.IsNotExist(err) {
		t.Error("Simulated or Plans created a target")
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
		{"curve", strings.Replace(goodSuite, "curve: [50]", "curve: [50, 0]", 1), "suite.yaml:16: curve: point 0 is not valid"},
		{"override breaks a profile", strings.Replace(goodSuite, "force: false", "force: false\nelapsed: 30\ninterval: 7", 1),
			"suite.yaml:6: profile 4k-random-read: with the suite's elapsed, interval, warmup or curve: 4k-random-read.vdb:"},
		{"two documents", goodSuite + "---\nkind: block-suite\n", "more than one YAML document"},
		{"empty", "# nothing\n", "suite.yaml: the suite file is empty"},
	} {
		_, err := ParseSuite("suite.yaml", []byte(tc.edit))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
	}
}

func TestOverride(t *testing.T) {
	prof, _ := ProfileByName("4k-random-read")
	p, err := prof.Params([]string{"/dev/x"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	three, two := 3*time.Second, 2*time.Second
	// elapsed=3 does not fit the profile's interval=5: the interval becomes
	// vdbench's default for 3 s, 1 s (warmup=10 is a multiple of it).
	if err := p.Override(Overrides{Elapsed: &three, Curve: []float64{20, 80}}); err != nil {
		t.Fatal(err)
	}
	rd := p.RDs[0]
	if rd.Elapsed != three || rd.Interval != time.Second || rd.Warmup != 10*time.Second || !slices.Equal(rd.Curve, []float64{20, 80}) {
		t.Errorf("rd %+v", rd)
	}
	// An explicit interval that does not fit is an error naming the rule.
	if err := p.Override(Overrides{Elapsed: &three, Interval: &two}); err == nil || !strings.Contains(err.Error(), "elapsed=3 must be at least twice interval=2") {
		t.Errorf("elapsed=3 interval=2: %v", err)
	}
}

// simulatedSuite parses body and returns it simulated in a temporary
// directory.
func simulatedSuite(t *testing.T, body string) *Suite {
	t.Helper()
	s, err := ParseSuite("suite.yaml", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return s.Simulated(t.TempDir())
}

// TestRunSuiteSimulated runs two profiles on two temporary files, one
// point each after the max run, and checks the results, the progress log
// and the records.
func TestRunSuiteSimulated(t *testing.T) {
	s := simulatedSuite(t, goodSuite)
	var log, out strings.Builder
	var seen []string
	res, err := RunSuite(t.Context(), s, SuiteOptions{Log: &log, Out: &out, OnProfile: func(pr *ProfileResult) error {
		seen = append(seen, pr.Plan.Profile.Name)
		return nil
	}})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(res.Profiles) != 2 || !slices.Equal(seen, []string{"4k-random-read", "4k-random-write"}) {
		t.Fatalf("profiles %d, callbacks %v", len(res.Profiles), seen)
	}
	for _, want := range []string{"==> [1/2] 4k-random-read", "==> [2/2] 4k-random-write", "point 1/2 max (Uncontrolled MAX): ",
		"point 2/2 50% (requested ", "4k-random-write: start "} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	if !strings.Contains(out.String(), "Starting RD=randwrite_4k (50%)") || !strings.Contains(out.String(), "avg_2-2") {
		t.Errorf("interval lines:\n%s", out.String())
	}
	pr := res.Profiles[1]
	if len(pr.Curve.Points) != 2 || pr.Summary.PeakIOPS <= 0 || pr.Err != nil {
		t.Fatalf("profile result %+v", pr)
	}
	res0 := pr.Curve.Points[1].Result
	if res0.Labels["suite"] != "tiny-suite" || res0.Labels["profile"] != "4k-random-write" || res0.Ops[OpWrite].Latency.Count == 0 {
		t.Errorf("result labels %v, ops %+v", res0.Labels, res0.Ops)
	}

	rec, err := NewRunRecord(pr.Plan.Run, pr.Curve, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := rec.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRunRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Points) != 2 || len(back.Targets) != 2 || back.Points[1].Intended == nil || back.Points[0].Intended != nil ||
		len(back.Points[1].Targets) != 2 || back.Summary.PeakIOPS != pr.Summary.PeakIOPS || !strings.Contains(back.Parameters, "rd=randwrite_4k") {
		t.Errorf("record %+v", back)
	}
	if got := Summarize(back.Curve()); got != pr.Summary {
		t.Errorf("summary from the record %+v, want %+v", got, pr.Summary)
	}
	// The per-SD Results merge exactly into the point's Result.
	p := back.Points[1]
	m, err := oltp.Merge(p.PerSD...)
	if err != nil || m.Ops[OpWrite].Latency.Count != p.Result.Ops[OpWrite].Latency.Count {
		t.Errorf("merge of the per-SD results: %v", err)
	}
	if order := back.CurveOrder(); order[0].Label != "50%" || order[1].Label != "max" {
		t.Errorf("curve order %s, %s", order[0].Label, order[1].Label)
	}
	if _, err := params(back.Parameters); err != nil {
		t.Errorf("the record's parameters do not parse: %v", err)
	}
}

func params(text string) (*Params, error) {
	p, err := Parse("record", []byte(text))
	if err != nil {
		return nil, err
	}
	return p, p.Validate()
}

// TestRunSuiteChecksTargetsFirst: a target with an ext4 signature or one
// that does not exist stops the suite before the first profile, and
// nothing is created.
func TestRunSuiteChecksTargetsFirst(t *testing.T) {
	dir := t.TempDir()
	ext4 := filepath.Join(dir, "ext4.img")
	img := make([]byte, 4<<20)
	copy(img[1080:], []byte{0x53, 0xEF})
	binary.LittleEndian.PutUint32(img[1024+24:], 2)
	if err := os.WriteFile(ext4, img, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.img")
	body := strings.Replace(goodSuite, "[/dev/nvme0n1, /dev/nvme1n1]", "["+ext4+", "+missing+"]", 1)
	s, err := ParseSuite("suite.yaml", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	_, err = RunSuite(t.Context(), s, SuiteOptions{Log: &log})
	if err == nil || !strings.Contains(err.Error(), ext4+" carries a ext2/3/4 file system signature") ||
		!strings.Contains(err.Error(), "target "+missing+" does not exist") {
		t.Fatalf("error %v", err)
	}
	if strings.Contains(log.String(), "==>") {
		t.Errorf("a profile started:\n%s", log.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the check created files: %v", entries)
	}
	if st, _ := os.Stat(ext4); st.Size() != 4<<20 {
		t.Errorf("the ext4 image changed size")
	}
	// A missing file with size= is accepted (the run would create it) and
	// not created by the check.
	run := testRun(RD{IORate: IORate{Max: true}, Elapsed: time.Second}, WD{RdPct: 0}, SD{Name: "sd1", Lun: missing, Size: 1 << 20})
	if err := CheckTargets([]Run{run}, false); err != nil {
		t.Errorf("missing file with size=: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Error("CheckTargets created the file")
	}
}

func TestProgressWriter(t *testing.T) {
	var log, out strings.Builder
	p := newProgressWriter(&out, &log, 2)
	_ = writeStart(p, "rd1", "max", 0, RD{Elapsed: 2e9}, time.Second, oltp.Exponential)
	f := newFigures()
	f.read.Record(100 * time.Microsecond)
	f.length = time.Second
	_ = writeIntervalLine(p, time.Now(), "avg_2-2", f)
	_ = writeStart(p, "rd1", "50%", 2500, RD{Elapsed: 2e9}, time.Second, oltp.Exponential)
	_ = writeIntervalLine(p, time.Now(), "avg_2-2", f)
	p.Write([]byte("warning: something"))
	p.flush()
	want := "    point 1/2 max (Uncontrolled MAX): 1 IOPS, mean response 0.100 ms\n" +
		"    point 2/2 50% (requested 2,500 I/O/s): 1 IOPS, mean response 0.100 ms\n    warning: something\n"
	if log.String() != want {
		t.Errorf("log\n%q\nwant\n%q", log.String(), want)
	}
	if !strings.Contains(out.String(), "Starting RD=rd1 (50%)") {
		t.Errorf("output not passed on: %q", out.String())
	}
}

func TestRunName(t *testing.T) {
	for in, want := range map[string]string{"rd1_xfer=4k_threads=32": "rd1_xfer=4k_threads=32", "a/b c": "a_b_c", ".x": "run_.x", "": "run_"} {
		if got := RunName(in); got != want {
			t.Errorf("RunName(%q) = %q, want %q", in, got, want)
		}
	}
}
