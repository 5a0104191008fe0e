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
	"vmbench/vdbench/blockio"
	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
	"vmbench/workload"
)

func TestOverride(t *testing.T) {
	prof, _ := parmfile.ProfileByName("4k-random-read")
	p, err := prof.Params([]string{"/dev/x"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	three, two := 3*time.Second, 2*time.Second
	// elapsed=3 does not fit the profile's interval=5: the interval becomes
	// vdbench's default for 3 s, 1 s (warmup=10 is a multiple of it).
	if err := p.Override(parmfile.Overrides{Elapsed: &three, Curve: []float64{20, 80}}); err != nil {
		t.Fatal(err)
	}
	rd := p.RDs[0]
	if rd.Elapsed != three || rd.Interval != time.Second || rd.Warmup != 10*time.Second || !slices.Equal(rd.Curve, []float64{20, 80}) {
		t.Errorf("rd %+v", rd)
	}
	// An explicit interval that does not fit is an error naming the rule.
	if err := p.Override(parmfile.Overrides{Elapsed: &three, Interval: &two}); err == nil || !strings.Contains(err.Error(), "elapsed=3 must be at least twice interval=2") {
		t.Errorf("elapsed=3 interval=2: %v", err)
	}
}

// TestConfigRunSimulated runs a profile through the workload contract on
// two temporary files, one point after the max run, and checks the
// Output, the progress log, the interval lines and the record.
func TestConfigRunSimulated(t *testing.T) {
	dir := t.TempDir()
	cfg := profileConfig(t, "4k-random-write", "--target", filepath.Join(dir, "a.img"), "--target", filepath.Join(dir, "b.img"),
		"--size", "16m", "--threads", "2", "-e", "2", "-i", "1", "-w", "0", "--curve", "50", "--temporary-targets")
	var log, out strings.Builder
	env := workload.Env{Log: &log, Observer: cfg.IntervalWriter(&out), Labels: map[string]string{"suite": "tiny"}}
	if err := cfg.Prepare(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	if err := cfg.CheckTargets(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cfg.Plan(), "4k-random-write (4K random write): 2 target(s), 4 threads in all, 2 points") {
		t.Errorf("plan %q", cfg.Plan())
	}
	o, err := cfg.Run(t.Context(), env)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, want := range []string{"point 1/2 max (Uncontrolled MAX): ", "point 2/2 50% (requested ", "4k-random-write: start "} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	if !strings.Contains(out.String(), "Starting RD=randwrite_4k (50%)") || !strings.Contains(out.String(), "avg_1-2") {
		t.Errorf("interval lines:\n%s", out.String())
	}
	rec := o.Record.(*RunRecord)
	if o.Result != rec.Points[0].Result || rec.Profile != "4k-random-write" || rec.Points[1].Result.Labels["suite"] != "tiny" ||
		rec.Points[1].Result.Labels["profile"] != "4k-random-write" || rec.Points[1].Result.Ops[blockio.OpWrite].Latency.Count == 0 {
		t.Errorf("output %+v", rec)
	}
	if row := cfg.ReviewRow(o); len(row.Cells) != len(cfg.ReviewColumns()) || row.Cells[0] != "4K random write" {
		t.Errorf("review row %q", row)
	}
	files, err := cfg.WriteResults(dir, "p", o)
	if err != nil || !slices.Equal(files, []string{"p.json", "p.svg", "p-targets.svg", "p.txt"}) {
		t.Fatalf("files %v, %v", files, err)
	}
	checkTextHoldsConsole(t, filepath.Join(dir, "p.txt"), out.String())
	back, err := ReadRunRecord(filepath.Join(dir, "p.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Points) != 2 || len(back.Targets) != 2 || back.Points[1].Intended == nil || back.Points[0].Intended != nil ||
		len(back.Points[1].Targets) != 2 || !strings.Contains(back.Parameters, "rd=randwrite_4k") {
		t.Errorf("record %+v", back)
	}
	if got, want := Summarize(back.Curve()), Summarize(rec.curveResult()); got != want {
		t.Errorf("summary from the record %+v, want %+v", got, want)
	}
	p := back.Points[1]
	m, err := oltp.Merge(p.PerSD...)
	if err != nil || m.Ops[blockio.OpWrite].Latency.Count != p.Result.Ops[blockio.OpWrite].Latency.Count {
		t.Errorf("merge of the per-SD results: %v", err)
	}
	if order := back.CurveOrder(); order[0].Label != "50%" || order[1].Label != "max" {
		t.Errorf("curve order %s, %s", order[0].Label, order[1].Label)
	}
	if _, err := params(back.Parameters); err != nil {
		t.Errorf("the record's parameters do not parse: %v", err)
	}
}

// checkTextHoldsConsole: the result text file begins with the lines the
// run printed ("Starting RD=", interval and avg lines of every point),
// byte for byte, the engine's warnings aside (they follow the curve table).
// With two targets whose intervals end at slightly different instants, a
// file re-rendered from the merged Result (the first target's interval
// clock) differs in the time stamps and rates.
func checkTextHoldsConsole(t *testing.T, path, console string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimPrefix(console, "\n"), "\n") {
		if !strings.HasPrefix(l, "warning: ") {
			want.WriteString(l)
		}
	}
	if !strings.HasPrefix(string(b), want.String()) {
		t.Errorf("%s does not begin with the console's interval lines:\n%s\nconsole:\n%s", path, b, want.String())
	}
}

func params(text string) (*parmfile.Params, error) {
	p, err := parmfile.Parse("record", []byte(text))
	if err != nil {
		return nil, err
	}
	return p, p.Validate()
}

// TestConfigChecksTargets: a target with an ext4 signature or one that
// does not exist is refused, and nothing is created.
func TestConfigChecksTargets(t *testing.T) {
	dir := t.TempDir()
	ext4 := filepath.Join(dir, "ext4.img")
	img := make([]byte, 4<<20)
	copy(img[1080:], []byte{0x53, 0xEF})
	binary.LittleEndian.PutUint32(img[1024+24:], 2)
	if err := os.WriteFile(ext4, img, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.img")
	cfg := profileConfig(t, "4k-random-write", "--target", ext4, "--target", missing)
	err := cfg.CheckTargets()
	if err == nil || !strings.Contains(err.Error(), ext4+" carries a ext2/3/4 file system signature") ||
		!strings.Contains(err.Error(), "target "+missing+" does not exist") {
		t.Fatalf("error %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the check created files: %v", entries)
	}
	if st, _ := os.Stat(ext4); st.Size() != 4<<20 {
		t.Errorf("the ext4 image changed size")
	}
	// A missing file with size= is accepted (the run would create it) and
	// not created by the check.
	run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: time.Second}, parmfile.WD{RdPct: 0}, parmfile.SD{Name: "sd1", Lun: missing, Size: 1 << 20})
	if err := blockio.CheckTargets([]parmfile.Run{run}, blockio.TargetOptions{}); err != nil {
		t.Errorf("missing file with size=: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Error("CheckTargets created the file")
	}
	// An existing 8 KiB file holds no 64 KiB transfer (its span would
	// start at 64 KiB): refused before the run, with the least size=.
	small := filepath.Join(dir, "small.img")
	if err := os.WriteFile(small, make([]byte, 8<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	run = blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: time.Second}, parmfile.WD{RdPct: 100, Xfer: parmfile.Single(64 << 10)}, parmfile.SD{Name: "sd1", Lun: small, OpenFlags: []string{"none"}})
	if err := blockio.CheckTargets([]parmfile.Run{run}, blockio.TargetOptions{}); err == nil || !strings.Contains(err.Error(), "holds no 65536-byte transfer") ||
		!strings.Contains(err.Error(), "(valid: size= of at least 128k") {
		t.Errorf("8 KiB file, 64 KiB transfers: %v", err)
	}
	if st, _ := os.Stat(small); st.Size() != 8<<10 {
		t.Errorf("the check changed the file's size to %d", st.Size())
	}
}
