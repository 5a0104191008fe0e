package parmfile

import (
	"strings"
	"testing"
)

// A for-loop that repeats values gives runs with distinct names, so their
// result files cannot overwrite each other; the names are deterministic.
func TestRunsRepeatedLoopValuesNamedApart(t *testing.T) {
	p := mustParse(t, "sd=sd1,lun=/dev/x\nwd=wd1,sd=sd1\n"+
		"rd=rd1,wd=wd1,iorate=max,forthreads=(128,1,16,128,1,16),forrdpct=(50,50)\n"+
		"rd=RD1_Threads.1,wd=wd1,iorate=max\nrd=rd1_threads.1,wd=wd1,iorate=max\n")
	runs, err := p.Runs()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
	}
	want := []string{
		"rd1_threads=128_rdpct=50", "rd1_threads=128_rdpct=50_rep2",
		"rd1_threads=1_rdpct=50", "rd1_threads=1_rdpct=50_rep2",
		"rd1_threads=16_rdpct=50", "rd1_threads=16_rdpct=50_rep2",
		"rd1_threads=128_rdpct=50_rep3", "rd1_threads=128_rdpct=50_rep4",
		"rd1_threads=1_rdpct=50_rep3", "rd1_threads=1_rdpct=50_rep4",
		"rd1_threads=16_rdpct=50_rep3", "rd1_threads=16_rdpct=50_rep4",
		"RD1_Threads.1", "rd1_threads.1_rep2", // the same file name on a case-insensitive file system
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("names\n got %q\nwant %q", names, want)
	}
	files := map[string]bool{}
	for _, r := range runs {
		f := strings.ToLower(RunName(r.Name))
		if files[f] {
			t.Errorf("two runs write %s.json", f)
		}
		files[f] = true
	}
}

func TestRunName(t *testing.T) {
	for in, want := range map[string]string{"rd1_xfer=4k_threads=32": "rd1_xfer=4k_threads=32", "a/b c": "a_b_c", ".x": "run_.x", "": "run_"} {
		if got := RunName(in); got != want {
			t.Errorf("RunName(%q) = %q, want %q", in, got, want)
		}
	}
}
