package parmfile

import (
	"io/fs"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"vmbench/internal/golden"
)

var testTargets = []string{"/dev/nvme0n1", "/dev/nvme1n1"}

func TestProfileCatalogue(t *testing.T) {
	all := Profiles()
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	var names []string
	for _, p := range all {
		if !kebab.MatchString(p.Name) {
			t.Errorf("%s: not kebab-case", p.Name)
		}
		if slices.Contains(names, p.Name) {
			t.Errorf("%s: listed twice", p.Name)
		}
		names = append(names, p.Name)
		if first := strings.SplitN(p.Text, "\n", 2)[0]; first != "* vmbench profile "+p.Name+": "+p.Title {
			t.Errorf("%s: first line %q", p.Name, first)
		}
		if got := strings.Contains(p.Text, "\n* APPROXIMATION. "); got != p.Approximation {
			t.Errorf("%s: APPROXIMATION header %v, Approximation %v", p.Name, got, p.Approximation)
		}
		for i, l := range strings.Split(p.Text, "\n") {
			if strings.HasPrefix(l, "*") && len(l) > 100 {
				t.Errorf("%s:%d: comment line of %d characters", p.Name, i+1, len(l))
			}
		}
		got, err := ProfileByName(strings.ToUpper(p.Name))
		if err != nil || got.Name != p.Name {
			t.Errorf("ProfileByName(%s): %v", p.Name, err)
		}
	}
	// The list: four corners (three with a newer thread count),
	// six database and six VDI profiles.
	want := []string{"4k-random-read", "4k-random-write", "4k-random-write-newer", "64k-sequential-read",
		"64k-sequential-read-newer", "64k-sequential-write", "64k-sequential-write-newer",
		"sql", "sql-90-10", "sql-80-20", "oracle", "oracle-90-10", "oracle-80-20",
		"vdi-fc-boot", "vdi-fc-initial-login", "vdi-fc-monday-login",
		"vdi-lc-boot", "vdi-lc-initial-login", "vdi-lc-monday-login"}
	if !slices.Equal(names, want) {
		t.Errorf("profiles %q\nwant %q", names, want)
	}
	// Every embedded file is in the catalogue.
	files, _ := fs.Glob(profileFiles, "profiles/*")
	if len(files) != len(all) {
		t.Errorf("%d embedded files for %d profiles: %q", len(files), len(all), files)
	}
	_, err := ProfileByName("4k-random")
	if err == nil || !strings.Contains(err.Error(), "4k-random-read, 4k-random-write") {
		t.Errorf("ProfileByName of an unknown name: %v", err)
	}
}

// TestProfiles parses, validates and round-trips every profile, and checks
// the settings the methodology fixes.
func TestProfiles(t *testing.T) {
	threads := map[string]int{"4k-random-read": 128, "4k-random-write": 64, "4k-random-write-newer": 128,
		"64k-sequential-read": 16, "64k-sequential-read-newer": 32, "64k-sequential-write": 8, "64k-sequential-write-newer": 16}
	reads := map[string]float64{"4k-random-read": 100, "4k-random-write": 0, "64k-sequential-read": 100, "64k-sequential-write": 0,
		"sql": 65, "sql-90-10": 90, "sql-80-20": 80, "oracle": 75, "oracle-90-10": 90, "oracle-80-20": 80,
		"vdi-fc-boot": 85, "vdi-lc-boot": 85, "vdi-fc-initial-login": 35, "vdi-lc-initial-login": 35,
		"vdi-fc-monday-login": 50, "vdi-lc-monday-login": 50}
	curve := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120}
	for _, prof := range Profiles() {
		t.Run(prof.Name, func(t *testing.T) {
			// As printed, the file parses; only the placeholder lun is refused.
			raw, err := Parse(prof.Name+".vdb", []byte(prof.Text))
			if err != nil {
				t.Fatalf("Parse of the text: %v", err)
			}
			if err := raw.Validate(); err == nil || !strings.Contains(err.Error(), "lun=$target is a placeholder") {
				t.Errorf("Validate of the text: %v", err)
			}

			p, err := prof.Params(testTargets, 0)
			if err != nil {
				t.Fatalf("Params: %v", err)
			}
			runs, err := p.Runs()
			if err != nil || len(runs) != 1 {
				t.Fatalf("Runs: %d, %v", len(runs), err)
			}
			r := runs[0]
			if len(r.SDs) != 2 {
				t.Errorf("%d sds, want one per target", len(r.SDs))
			}
			for i, sd := range r.SDs {
				if sd.Lun != testTargets[i] || sd.Range != [2]float64{0, 25} || sd.Threads != prof.Threads ||
					!slices.Equal(sd.OpenFlags, []string{"o_direct"}) {
					t.Errorf("sd %+v", sd)
				}
			}
			if n, ok := threads[prof.Name]; ok && prof.Threads != n {
				t.Errorf("threads %d, want %d (the reviews' thread counts)", prof.Threads, n)
			}
			rd := r.RD
			if !rd.IORate.Curve || !slices.Equal(rd.Curve, curve) || rd.Elapsed != time.Minute ||
				rd.Interval != 5*time.Second || rd.Warmup != 10*time.Second || rd.Distribution != "exponential" {
				t.Errorf("rd %+v", rd)
			}
			read := 0.0
			for i, share := range skewShares(r.WDs) {
				read += share * r.WDs[i].RdPct / 100
				if len(r.WDs[i].SDs) != 2 {
					t.Errorf("wd=%s runs on %q, want every target", r.WDs[i].Name, r.WDs[i].SDs)
				}
			}
			if want, ok := reads[strings.TrimSuffix(prof.Name, "-newer")]; !ok || math.Abs(read-want) > 0.05 {
				t.Errorf("reads are %.2f%% of the I/Os, want %v", read, want)
			}

			// Params -> Text -> Parse gives the same model.
			back, err := Parse(p.File, []byte(p.Text()))
			if err != nil {
				t.Fatalf("Parse(Text()): %v", err)
			}
			if a, b := withoutLines(p), withoutLines(back); !reflect.DeepEqual(a, b) {
				t.Errorf("round trip:\n got %+v\nwant %+v", b, a)
			}
		})
	}
}

func TestProfileRender(t *testing.T) {
	prof, err := ProfileByName("64k-sequential-write")
	if err != nil {
		t.Fatal(err)
	}
	same, err := prof.Render(nil, 0)
	if err != nil || same != prof.Text {
		t.Errorf("Render(nil, 0) changed the text: %v", err)
	}
	text, err := prof.Render([]string{"/dev/sdb", "/mnt/my disk,1/file"}, 12)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"\nsd=sd1,lun=/dev/sdb\n", "\nsd=sd2,lun=\"/mnt/my disk,1/file\"\n",
		"* threads=12 per target: set when the profile was rendered (the profile's own is 8)\n",
		"\nsd=default,range=(0,25),threads=12,openflags=o_direct\n", "* vmbench profile 64k-sequential-write:"} {
		if !strings.Contains(text, w) {
			t.Errorf("rendered text lacks %q:\n%s", w, text)
		}
	}
	p, err := prof.Params([]string{"/dev/sdb", "/mnt/my disk,1/file"}, 12)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.SDs) != 2 || p.SDs[1].Lun != "/mnt/my disk,1/file" || p.SDs[0].Threads != 12 || p.SDs[1].Threads != 12 {
		t.Errorf("Params: %+v", p.SDs)
	}
	for _, c := range []struct {
		targets []string
		threads int
		want    string
	}{
		{nil, 0, "no targets"},
		{[]string{"/dev/sdb", "/dev/sdb"}, 0, "given twice"},
		{[]string{""}, 0, "not a usable path"},
		{[]string{`/dev/"x"`}, 0, "not a usable path"},
		{[]string{"/dev/sdb"}, -1, "threads=-1"},
	} {
		if _, err := prof.Params(c.targets, c.threads); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Params(%q, %d): %v, want %q", c.targets, c.threads, err, c.want)
		}
	}
	broken := Profile{Name: "broken", Text: "sd=sd1,lun=/dev/x\n"}
	if _, err := broken.Render([]string{"/dev/y"}, 0); err == nil {
		t.Error("Render of a text without template: no error")
	}
}

// TestDescribeProfiles is the golden text of `vmbench vdbench parse` for
// a corner profile and the SQL profile on two targets.
func TestDescribeProfiles(t *testing.T) {
	for _, name := range []string{"4k-random-read", "sql"} {
		prof, err := ProfileByName(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := prof.Params(testTargets, 0)
		if err != nil {
			t.Fatal(err)
		}
		d, err := p.Describe()
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "describe-"+name+".golden"), []byte(d))
	}
}
