package main

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/oltp"
	"vmbench/scenarios/spec"
	"vmbench/vdbench"
)

// tinySuite is a block-suite campaign whose simulation runs two profiles
// of two 2 s points (the max run and 50%) on two 8 MiB files.
const tinySuite = `kind: block-suite
name: tiny-block
description: two profiles
targets: [/dev/nvme0n1, /dev/nvme1n1]
profiles: [4k-random-read, 64k-sequential-write]
simulate:
  targets: 2
  size: 8m
  threads: 2
  elapsed: 2
  interval: 1
  warmup: 0
  curve: [50]
`

// checkSVG parses an SVG chart as XML and checks it names want.
func checkSVG(t *testing.T, path string, want ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("%s: not well-formed: %v", path, err)
			return
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	for _, w := range want {
		if !strings.Contains(text.String(), w) {
			t.Errorf("%s: no text %q", path, w)
		}
	}
}

func TestVdbenchSuiteCampaignSimulated(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where --simulate puts its temporary files
	file := writeFile(t, "tiny-block.yaml", tinySuite)
	res := t.TempDir()
	code, stdout, stderr := runCLI(t, nil, "campaign", "run", file, "--simulate", "--results-dir", res)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"==> [1/2] 4k-random-read", "==> [2/2] 64k-sequential-write", "point 2/2 50% (requested "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{"Starting RD=", "avg_1-2", "start latency (µs)", "4K random read", "GB/s"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(res, "tiny-block-*"))
	if len(dirs) != 1 || strings.HasSuffix(dirs[0], ".incomplete") {
		t.Fatalf("results dirs %v", dirs)
	}
	dir := dirs[0]
	for _, name := range []string{"4k-random-read", "64k-sequential-write"} {
		rec, err := vdbench.ReadRunRecord(filepath.Join(dir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Profile != name || len(rec.Points) != 2 || len(rec.Targets) != 2 || rec.Summary.PeakIOPS <= 0 || rec.Interrupted {
			t.Errorf("%s: record %+v", name, rec)
		}
		// Each point's per-target Results merge (oltp.Merge) into its Result.
		p := rec.Points[1]
		if m, err := oltp.Merge(p.PerSD...); err != nil || m.Parts != 2 || p.Result.Labels["profile"] != name {
			t.Errorf("%s: merging the per-target results: %v", name, err)
		}
		checkSVG(t, filepath.Join(dir, name+".svg"), "latency vs IOPS", "service time (all targets)", "from intended start", "mean latency")
		checkSVG(t, filepath.Join(dir, name+"-targets.svg"), "service time per target", "target1.img", "target2.img")
		if b, err := os.ReadFile(filepath.Join(dir, name+".txt")); err != nil || !strings.Contains(string(b), "avg_1-2") {
			t.Errorf("%s.txt: %v", name, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "| 64K sequential write | ") || !strings.Contains(string(md), "(4k-random-read.svg)") ||
		!strings.Contains(string(md), "GB/s") || !strings.Contains(string(md), "Simulated: 2 temporary files of 8m") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	if _, err := spec.LoadSuite(filepath.Join(dir, "suite.yaml")); err != nil {
		t.Errorf("suite.yaml does not load back: %v", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("temporary targets left behind: %v", entries)
	}
}

func TestVdbenchRunParameterFile(t *testing.T) {
	dir := t.TempDir()
	parm := writeFile(t, "tiny.vdb", "sd=sd1,lun="+filepath.Join(dir, "a.img")+",size=8m,threads=2\n"+
		"wd=wd1,sd=sd1,xfersize=4k,rdpct=70\nrd=rd1,wd=wd1,iorate=curve,curve=(50),elapsed=2,interval=1\n")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, nil, "vdbench", "run", parm, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"Starting RD=rd1 (max)", "Starting RD=rd1 (50%)", "intended avg", "rd=rd1 summary", "peak:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	rec, err := vdbench.ReadRunRecord(filepath.Join(out, "rd1.json"))
	if err != nil || len(rec.Points) != 2 {
		t.Fatalf("record: %v", err)
	}
	checkSVG(t, filepath.Join(out, "rd1.svg"), "rd1: latency vs IOPS")
	if _, err := os.Stat(filepath.Join(out, "rd1-targets.svg")); err == nil {
		t.Error("a per-target chart for one target")
	}
	for _, f := range []string{"summary.txt", "parmfile.vdb"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestVdbenchProfilesAndParse(t *testing.T) {
	code, out, stderr := runCLI(t, nil, "vdbench", "profiles")
	if code != 0 || !strings.Contains(out, "4k-random-read") || !strings.Contains(out, "vdi-lc-monday-login") || !strings.Contains(out, "APPROX") {
		t.Fatalf("profiles: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, nil, "vdbench", "profiles", "oracle-90-10", "--target", "/dev/sdx", "--target", "/dev/sdy")
	if code != 0 || !strings.Contains(out, "sd=sd1,lun=/dev/sdx") || !strings.Contains(out, "sd=sd2,lun=/dev/sdy") || !strings.Contains(out, "APPROXIMATION") {
		t.Fatalf("profile text: exit %d\n%s%s", code, out, stderr)
	}
	file := writeFile(t, "oracle.vdb", out)
	code, out, stderr = runCLI(t, nil, "vdbench", "parse", file)
	if code != 0 || !strings.Contains(out, "Parameter file "+file) || !strings.Contains(out, "iorate=curve") || !strings.Contains(out, "lun=/dev/sdy") {
		t.Fatalf("parse: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, nil, "vdbench", "parse", "--profile", "sql", "--target", "/dev/sdx", "-e", "30", "-w", "0")
	if code != 0 || !strings.Contains(out, "each point: 30s, reported every 5s") {
		t.Errorf("parse --profile -e 30: exit %d\n%s", code, out)
	}
}

// ext4Image writes a file that carries an ext4 superblock.
func ext4Image(t *testing.T) string {
	t.Helper()
	img := make([]byte, 4<<20)
	copy(img[1080:], []byte{0x53, 0xEF})
	binary.LittleEndian.PutUint32(img[1024+24:], 2)
	p := filepath.Join(t.TempDir(), "ext4.img")
	if err := os.WriteFile(p, img, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVdbenchBadInput(t *testing.T) {
	badKeyword := writeFile(t, "bad.vdb", "sd=sd1,lun=/dev/null\nwd=wd1,sd=sd1,xfersise=4k\nrd=rd1,wd=wd1,iorate=max\n")
	ext4 := ext4Image(t)
	missingTargets := writeFile(t, "m.yaml", strings.Replace(tinySuite, "[/dev/nvme0n1, /dev/nvme1n1]", "[/nonexistent/vmbench-a]", 1))
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown profile", []string{"vdbench", "run", "--profile", "4k-randomread", "--target", ext4}, []string{`no built-in vdbench profile "4k-randomread"`, "valid: 4k-random-read"}},
		{"missing file", []string{"vdbench", "run", "nope.vdb"}, []string{"parameter file nope.vdb does not exist"}},
		{"bad keyword", []string{"vdbench", "run", badKeyword}, []string{badKeyword + ":2:", "xfersise"}},
		{"target does not exist", []string{"vdbench", "run", "--profile", "4k-random-read", "--target", "/nonexistent/vmbench-t"}, []string{"target /nonexistent/vmbench-t does not exist"}},
		{"ext4 signature without --force", []string{"vdbench", "run", "--profile", "4k-random-write", "--target", ext4}, []string{ext4 + " carries a ext2/3/4 file system signature", "--force"}},
		{"file and profile", []string{"vdbench", "run", badKeyword, "--profile", "sql"}, []string{"not both"}},
		{"profile without target", []string{"vdbench", "run", "--profile", "sql"}, []string{"--profile sql needs --target"}},
		{"target with a file", []string{"vdbench", "run", badKeyword, "--target", "/dev/x"}, []string{"--target and --threads go with --profile"}},
		{"bad elapsed", []string{"vdbench", "run", "--profile", "sql", "--target", ext4, "-e", "2.5"}, []string{"--elapsed", "2.5"}},
		{"override that does not fit", []string{"vdbench", "run", "--profile", "sql", "--target", ext4, "-e", "3", "-i", "2"}, []string{"--elapsed, --interval or --warmup", "elapsed=3 must be at least twice interval=2"}},
		{"parse bad keyword", []string{"vdbench", "parse", badKeyword}, []string{badKeyword + ":2:", "xfersise"}},
		{"unknown profile to print", []string{"vdbench", "profiles", "nope"}, []string{`no built-in vdbench profile "nope"`}},
		{"suite: unknown key", []string{"campaign", "run", writeFile(t, "k.yaml", tinySuite+"colour: red\n"), "--simulate"}, []string{"line 14", `unknown key "colour"`}},
		{"suite: unknown profile", []string{"campaign", "run", writeFile(t, "p.yaml", strings.Replace(tinySuite, "64k-sequential-write]", "64k-seq-write]", 1)), "--simulate"}, []string{"p.yaml:5: profiles", `"64k-seq-write"`}},
		{"suite: target does not exist", []string{"campaign", "run", missingTargets}, []string{"m.yaml: targets:", "/nonexistent/vmbench-a does not exist"}},
		{"suite: ext4 target", []string{"campaign", "run", writeFile(t, "e.yaml", strings.Replace(tinySuite, "[/dev/nvme0n1, /dev/nvme1n1]", "["+ext4+"]", 1))}, []string{"carries a ext2/3/4 file system signature"}},
		{"suite: OLTP flag", []string{"campaign", "run", missingTargets, "--simulate", "--keep-vms"}, []string{"block-suite campaign: --keep-vms does not apply"}},
		{"suite: no simulate block", []string{"campaign", "run", writeFile(t, "n.yaml", strings.Split(tinySuite, "simulate:")[0]), "--simulate"}, []string{"--simulate needs a simulate: block"}},
		{"unknown kind", []string{"campaign", "run", writeFile(t, "u.yaml", strings.Replace(tinySuite, "kind: block-suite", "kind: file-suite", 1))}, []string{`kind: "file-suite" is not known`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(ext4)
			runRefused(t, t.TempDir(), tc.args, tc.want)
			if after, _ := os.ReadFile(ext4); !bytes.Equal(before, after) {
				t.Error("the ext4 image was changed")
			}
		})
	}
}

// runRefused runs vmbench with args and the results directory dir/out,
// and checks it exits 2 with each of want on stderr, leaving dir empty.
func runRefused(t *testing.T, dir string, args, want []string) {
	t.Helper()
	out := filepath.Join(dir, "out")
	switch {
	case args[0] == "campaign":
		args = append(args, "--results-dir", out)
	case args[0] == "vdbench" && args[1] == "run":
		args = append(args, "-o", out)
	}
	code, _, stderr := runCLI(t, nil, args...)
	if code != 2 {
		t.Errorf("exit %d, want 2; stderr %q", code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q lacks %q", stderr, w)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input created %v", entries)
	}
}
