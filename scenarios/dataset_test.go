package scenarios

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
)

// TestCheckDataDisk: data.source prebuilt needs the layout's data disk
// (data.disk, or the role's db-test); a data.disk given must be one, and
// data.dir must be able to be a directory: else the file is refused
// before anything is created, naming the file, line and what is valid.
func TestCheckDataDisk(t *testing.T) {
	b, err := os.ReadFile("sysbench-8vm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Simulate: true, Getenv: func(string) string { return "" }}
	for _, c := range []struct{ data, want string }{ // want: the error, "" for none
		{"data:\n  source: prebuilt\n", ""},
		{"data:\n  source: prebuilt\n  disk: db-test\n", ""},
		{"data:\n  source: prebuilt\n  disk: boot\n", `data.disk: layout sysbench has no data disk "boot" (its data disks: db-prebuilt, db-test)`},
		{"data:\n  disk: nope\n", `data.disk: layout sysbench has no data disk "nope"`},
		{"data:\n  dir: ~/sets\n", "data.dir: ~/sets: write the home directory out"},
		{"data:\n  sorce: prebuilt\n", `unknown key "sorce" in data (valid: source, dir, disk)`},
		{"data:\n  dir: sysbench-8vm.yaml/sub\n", "data.dir: sysbench-8vm.yaml is not a directory, so sysbench-8vm.yaml/sub cannot be one"},
	} {
		cf, err := spec.Parse("sysbench-8vm.yaml", append(b, c.data...))
		if err == nil {
			_, err = Check(cf, opts)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.data, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "sysbench-8vm.yaml:")):
			t.Errorf("%q: %v, want %q with its line", c.data, err, c.want)
		}
	}
}

// TestPrepareDataOneAtATime: a second prepare-data on the same data
// directory is refused while the first holds it, naming that process.
func TestPrepareDataOneAtATime(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("sysbench-8vm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cf := parsed(t, string(b)+"data:\n  dir: "+dir+"\n")
	held, err := rundir.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	k, err := Check(cf, Options{Simulate: true, Log: io.Discard, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = PrepareData(t.Context(), k)
	if err == nil || !strings.Contains(err.Error(), "is in use by another prepare-data (pid "+strconv.Itoa(os.Getpid())+")") {
		t.Errorf("err = %v", err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.db")); len(files) != 0 {
		t.Errorf("made %v", files)
	}
}
