package agent

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vmbench/dialect"
	"vmbench/workload"
)

// fakeDev is one block device of a fake sysfs tree.
type fakeDev struct {
	name, wwid, addr string
	sectors          int64
	parts            []string
}

// fakeSysfs builds root/sys/block as Linux lays it out for SCSI disks:
// <dev>/device a symlink whose last element is "H:C:T:L", device/wwid,
// size in 512-byte sectors, a partition's directory holding "partition".
// It is a fake because this machine has no SCSI disks (let alone vDisks
// with disk.EnableUUID), and a test must not depend on the host's disks.
func fakeSysfs(t *testing.T, devs ...fakeDev) string {
	t.Helper()
	root := t.TempDir()
	block := filepath.Join(root, "sys", "block")
	write := func(path, s string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range devs {
		dir := filepath.Join(block, d.name)
		write(filepath.Join(dir, "size"), strconv.FormatInt(d.sectors, 10)+"\n")
		if d.addr != "" {
			target := filepath.Join(root, "sys", "devices", "target", d.addr)
			if d.wwid != "" {
				write(filepath.Join(target, "wwid"), d.wwid+"\n")
			} else if err := os.MkdirAll(target, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(dir, "device")); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range d.parts {
			write(filepath.Join(dir, p, "partition"), "1\n")
		}
	}
	return root
}

const (
	uuidB = "6000C298-0bd5-4b1f-8d39-5a2c1e7f0a01"
	wwidB = "naa.6000c2980bd54b1f8d395a2c1e7f0a01"
	uuidC = "6000c29a11112222333344445555aaaa"
	wwidC = "naa.6000c29a11112222333344445555aaaa"
	gib   = int64(1) << 30
)

func TestFindDisks(t *testing.T) {
	sda := fakeDev{name: "sda", wwid: "naa.6000c29000000000000000000000000a", addr: "2:0:0:0", sectors: 40 * gib / 512, parts: []string{"sda1", "sda2"}}
	sdb := fakeDev{name: "sdb", wwid: wwidB, addr: "2:0:1:0", sectors: 10 * gib / 512}
	sdc := fakeDev{name: "sdc", wwid: wwidC, addr: "3:0:2:0", sectors: 20 * gib / 512}
	loop := fakeDev{name: "loop0", sectors: 8} // no device link: skipped
	diskB := Disk{Name: "data-1", Bus: 0, Unit: 1, UUID: uuidB, SizeBytes: 10 * gib}
	diskC := Disk{Name: "data-2", Bus: 1, Unit: 2, UUID: strings.ToUpper(uuidC), SizeBytes: 20 * gib}
	for _, tc := range []struct {
		name  string
		devs  []fakeDev
		disks []Disk
		want  []string // paths, or nil for an error
		err   []string // the error names these
	}{
		{"two disks in order", []fakeDev{sda, sdb, sdc, loop}, []Disk{diskC, diskB}, []string{"/dev/sdc", "/dev/sdb"}, nil},
		{"wrong unit", []fakeDev{sdb}, []Disk{{Name: "data-1", Unit: 3, UUID: uuidB, SizeBytes: 10 * gib}},
			nil, []string{"disk data-1 (SCSI 0:3, uuid " + uuidB + ")", "/dev/sdb at SCSI address 2:0:1:0: target 1, not unit 3"}},
		{"wrong size", []fakeDev{sdb}, []Disk{{Name: "data-1", Unit: 1, UUID: uuidB, SizeBytes: 11 * gib}},
			nil, []string{"disk data-1", "/dev/sdb of 10737418240 bytes, not the 11811160064 bytes"}},
		{"missing", []fakeDev{sda, sdb, loop}, []Disk{diskC},
			nil, []string{"disk data-2 (SCSI 1:2, uuid " + strings.ToUpper(uuidC) + ")", "no block device has that WWN",
				"disk.EnableUUID=TRUE", "devices seen: sda (naa.6000c29000000000000000000000000a), sdb (" + wwidB + ")"}},
		{"no wwid at all", []fakeDev{{name: "sdb", addr: "2:0:1:0", sectors: 8}}, []Disk{diskB},
			nil, []string{"devices seen: sdb (no wwid)"}},
		{"two devices with the WWN", []fakeDev{sdb, {name: "sdd", wwid: wwidB, addr: "4:0:1:0", sectors: 10 * gib / 512}}, []Disk{diskB},
			nil, []string{"disk data-1", "/dev/sdb and /dev/sdd all have that WWN"}},
		{"partitions", []fakeDev{{name: "sdb", wwid: wwidB, addr: "2:0:1:0", sectors: 10 * gib / 512, parts: []string{"sdb1"}}}, []Disk{diskB},
			nil, []string{"/dev/sdb, which has partitions (sdb1)"}},
		{"not a SCSI address", []fakeDev{{name: "sdb", wwid: wwidB, addr: "nvme0", sectors: 10 * gib / 512}}, []Disk{diskB},
			nil, []string{`device "nvme0" is not a SCSI address`}},
		{"every disk's problem", []fakeDev{sdb}, []Disk{{Name: "data-1", Unit: 2, UUID: uuidB, SizeBytes: 10 * gib}, diskC},
			nil, []string{"not unit 2", "disk data-2", "no block device has that WWN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := findDisks(fakeSysfs(t, tc.devs...), tc.disks)
			if tc.want != nil {
				if err != nil || strings.Join(got, " ") != strings.Join(tc.want, " ") {
					t.Fatalf("findDisks = %v, %v; want %v", got, err, tc.want)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrDiskPlacement) || IsBadInput(err) {
				t.Fatalf("findDisks = %v, %v; want a placement error (not a bad job)", got, err)
			}
			for _, w := range tc.err {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

func TestFindDisksNoSysBlock(t *testing.T) {
	if _, err := findDisks(t.TempDir(), []Disk{{Name: "d", Unit: 1, UUID: uuidB, SizeBytes: 1}}); !errors.Is(err, ErrDiskPlacement) ||
		!strings.Contains(err.Error(), "reading the guest's block devices") {
		t.Errorf("findDisks without sys/block: %v", err)
	}
}

func TestParseJobDisks(t *testing.T) {
	disk := `{"name":"data-1","bus":0,"unit":1,"uuid":"` + uuidB + `","size_bytes":10737418240}`
	job := func(flags, disks string) string {
		return `{"version":1,"tool":"vdbench","workload":"4k-random-read","steps":["run"]` + flags + `,"disks":[` + disks + `]}`
	}
	for _, tc := range []struct{ name, raw, want string }{
		{"good", job("", disk+`,{"name":"data-2","bus":1,"unit":15,"uuid":"`+uuidC+`","size_bytes":1}`), ""},
		{"target flag too", job(`,"flags":{"target":"/dev/sdb"}`, disk), "flags.target: the agent sets --target from disks"},
		{"tool without targets", `{"version":1,"tool":"sysbench","database":{"driver":"sqlite","sqlite_path":"x.db"},"steps":["run"],"disks":[` + disk + `]}`,
			"disks: given, but sysbench takes no --target"},
		{"no name", job("", strings.Replace(disk, `"data-1"`, `""`, 1)), "disks[0].name: empty"},
		{"unit 7", job("", strings.Replace(disk, `"unit":1`, `"unit":7`, 1)), "disks[0].unit: 7 is not a SCSI unit number"},
		{"unit 16", job("", strings.Replace(disk, `"unit":1`, `"unit":16`, 1)), "disks[0].unit: 16"},
		{"unit -1", job("", strings.Replace(disk, `"unit":1`, `"unit":-1`, 1)), "disks[0].unit: -1"},
		{"bus 4", job("", strings.Replace(disk, `"bus":0`, `"bus":4`, 1)), "disks[0].bus: 4 is not a SCSI controller bus number (valid: 0-3)"},
		{"size 0", job("", strings.Replace(disk, `10737418240`, `0`, 1)), "disks[0].size_bytes: 0"},
		{"short uuid", job("", strings.Replace(disk, uuidB, "6000c298", 1)), `disks[0].uuid: "6000c298" is not a disk UUID`},
		{"not hex", job("", strings.Replace(disk, uuidB, strings.Replace(uuidB, "6", "g", 1), 1)), "is not a disk UUID (32 hex digits"},
		{"same disk twice", job("", disk+","+disk), "disks[1]: SCSI address 0:1 is also disks[0]'s"},
		{"same uuid, other case", job("", disk+","+strings.NewReplacer(`"unit":1`, `"unit":2`, `"data-1"`, `"data-2"`, uuidB, strings.ToUpper(uuidB)).Replace(disk)),
			"disks[1]: uuid 6000c2980bd54b1f8d395a2c1e7f0a01 is also disks[0]'s"},
		{"unknown field", job("", strings.Replace(disk, `"bus"`, `"controller":0,"bus"`, 1)), `unknown field "controller"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := ParseJob([]byte(tc.raw))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("ParseJob: %v", err)
			case tc.want == "" && (len(j.Disks) != 2 || j.Disks[1].Unit != 15 || j.Disks[0].SizeBytes != 10*gib):
				t.Errorf("disks read as %+v", j.Disks)
			case tc.want != "" && (err == nil || !IsBadInput(err) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("ParseJob: %v; want a bad job naming %q", err, tc.want)
			}
		})
	}
}

// TestAgentRunDisks: a vdbench job's disks are found in the (fake) sysfs
// and given to vdbench as --target in order; vdbench's CheckTargets then
// opens them. This machine has no /dev/sdc or /dev/sdb of the fake tree,
// so the run fails there, which shows the targets were set: a placement
// failure (not a bad job), reported in status.json, nothing else left.
func TestAgentRunDisks(t *testing.T) {
	if _, err := os.Stat("/dev/sdb"); err == nil {
		t.Skip("this machine has a /dev/sdb; the test needs the fake tree's devices to be absent")
	}
	root := fakeSysfs(t,
		fakeDev{name: "sdb", wwid: wwidB, addr: "2:0:1:0", sectors: 10 * gib / 512},
		fakeDev{name: "sdc", wwid: wwidC, addr: "3:0:2:0", sectors: 20 * gib / 512})
	job := &Job{Version: JobVersion, Tool: "vdbench", Workload: "4k-random-read", Steps: []workload.Verb{workload.VerbRun},
		Disks: []Disk{{Name: "data-2", Bus: 1, Unit: 2, UUID: uuidC, SizeBytes: 20 * gib}, {Name: "data-1", Unit: 1, UUID: uuidB, SizeBytes: 10 * gib}}}
	dir := runDir(t, job)
	err := run(t.Context(), dir, nil, hooks{sysRoot: root})
	if err == nil || IsBadInput(err) || !errors.Is(err, ErrDiskPlacement) {
		t.Fatalf("run: %v; want a placement failure", err)
	}
	if runtime.GOOS != "linux" {
		if !strings.Contains(err.Error(), "implemented for Linux guests only") {
			t.Errorf("run: %v; want Linux guests only", err)
		}
		return
	}
	msg := err.Error()
	if i, j := strings.Index(msg, "/dev/sdc"), strings.Index(msg, "/dev/sdb"); i < 0 || j < i {
		t.Errorf("run: %v; want vdbench's checks of /dev/sdc then /dev/sdb", err)
	}
	if st := readStatus(t, dir); st.State != StateFailed || st.FlagError || st.Error != msg {
		t.Errorf("status %+v; want failed with the error, no flag_error", st)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{JobFile, StatusFile}) {
		t.Errorf("run directory holds %v", names)
	}
}

// TestJobDatabaseJSON: job.json's database has snake_case fields, every
// one of dialect.Config's but the password, and reads back the same; Go
// field names of more than one word are unknown fields (encoding/json
// matches names without regard to case, so "Driver" still reads).
func TestJobDatabaseJSON(t *testing.T) {
	db := dialect.Config{Driver: dialect.MySQL, Host: "10.0.0.5", Port: 3306, Socket: "/run/mysqld.sock", User: "sbtest",
		Password: "pw", Database: "sbtest", Instance: "SQL1", SQLitePath: "/srv/x.db", Params: map[string]string{"readTimeout": "30s"}}
	j := &Job{Version: JobVersion, Tool: "sysbench", Database: &db, Steps: []workload.Verb{workload.VerbRun}}
	b, err := j.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Database map[string]any `json:"database"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	want := []string{"database", "driver", "host", "instance", "params", "port", "socket", "sqlite_path", "user"}
	if got := slices.Sorted(maps.Keys(raw.Database)); !slices.Equal(got, want) {
		t.Errorf("database fields %v, want %v", got, want)
	}
	got, err := ParseJob(b)
	if err != nil {
		t.Fatal(err)
	}
	db.Password = ""
	if !reflect.DeepEqual(*got.Database, db) {
		t.Errorf("read back %+v, want %+v", *got.Database, db)
	}
	old := []byte(`{"version":1,"tool":"sysbench","database":{"Driver":"sqlite","SQLitePath":"x.db"},"steps":["run"]}`)
	if _, err := ParseJob(old); !IsBadInput(err) || !strings.Contains(err.Error(), `unknown field "SQLitePath"`) {
		t.Errorf("ParseJob of Go field names: %v", err)
	}
}
