//go:build linux

package blockio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

// image returns a 128 KiB zeroed image with magic written at off.
func image(off int, magic []byte) []byte {
	b := make([]byte, 128<<10)
	copy(b[off:], magic)
	return b
}

func TestSignature(t *testing.T) {
	ext := image(1080, []byte{0x53, 0xEF})
	binary.LittleEndian.PutUint32(ext[1024+24:], 2) // 4 KiB blocks
	fat := image(82, []byte("FAT32   "))
	copy(fat[510:], []byte{0x55, 0xAA})
	ntfs := image(3, []byte("NTFS    "))
	copy(ntfs[510:], []byte{0x55, 0xAA})
	lvm := image(512, []byte("LABELONE"))
	copy(lvm[512+24:], "LVM2 001")
	for _, tc := range []struct {
		name string
		img  []byte
		want string
	}{
		{"empty", make([]byte, 128<<10), ""},
		{"short", []byte("hello"), ""},
		{"ext4", ext, "ext2/3/4 file system"},
		{"ext magic without a superblock", func() []byte { b := image(1080, []byte{0x53, 0xEF}); b[1048] = 0xff; return b }(), ""},
		{"xfs", image(0, []byte("XFSB")), "XFS file system"},
		{"btrfs", image(65600, []byte("_BHRfS_M")), "btrfs file system"},
		{"gpt", image(512, []byte("EFI PART")), "GPT partition table"},
		{"gpt 4Kn", image(4096, []byte("EFI PART")), "GPT partition table (4096-byte sectors)"},
		{"mbr", image(510, []byte{0x55, 0xAA}), "MBR partition table or boot sector (0x55AA)"},
		{"fat32", fat, "FAT32 file system"},
		{"ntfs", ntfs, "NTFS file system"},
		{"lvm", lvm, "LVM2 physical volume"},
		{"swap", image(4086, []byte("SWAPSPACE2")), "Linux swap area"},
		{"old swap", image(4086, []byte("SWAP-SPACE")), "Linux swap area"},
		{"luks", image(0, []byte("LUKS\xba\xbe")), "LUKS encrypted volume"},
		{"md", image(4096, []byte{0xfc, 0x4e, 0x2b, 0xa9}), "Linux md RAID member (v1.2 superblock)"},
	} {
		got, err := Signature(bytes.NewReader(tc.img))
		if err != nil || got != tc.want {
			t.Errorf("%s: Signature = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	// Benchmark data (the write pattern) after an untouched first block is
	// not taken for a file system.
	r := rand.NewChaCha8([32]byte{1})
	b := make([]byte, sigBytes)
	for i := range 300 {
		_, _ = r.Read(b[512:]) // never fails
		if got, _ := Signature(bytes.NewReader(b)); got != "" {
			t.Fatalf("random data %d taken for a %s", i, got)
		}
	}
}

// directDir returns a directory whose file system accepts O_DIRECT:
// t.TempDir() (ext4 here), else a directory beside the test, else "" with
// the reason logged (tests then use openflags=none).
func directDir(t *testing.T) string {
	t.Helper()
	try := func(dir string) bool {
		fd, err := unix.Open(filepath.Join(dir, ".probe"), unix.O_CREAT|unix.O_RDWR|unix.O_DIRECT, 0o644)
		if err != nil {
			t.Logf("%s (%s) refuses O_DIRECT: %v", dir, fsName(dir), err)
			return false
		}
		unix.Close(fd)
		os.Remove(filepath.Join(dir, ".probe"))
		return true
	}
	if d := t.TempDir(); try(d) {
		return d
	}
	d, err := os.MkdirTemp(".", ".odirect-test-")
	if err == nil {
		t.Cleanup(func() { os.RemoveAll(d) })
		if try(d) {
			return d
		}
	}
	t.Log("no directory here accepts O_DIRECT: the real-file tests run with openflags=none (buffered)")
	return ""
}

func TestOpenTargetFile(t *testing.T) {
	dir := directDir(t)
	flags := []string(nil)
	if dir == "" {
		dir, flags = t.TempDir(), []string{"none"}
	}
	lun := filepath.Join(dir, "target.img")
	var progress strings.Builder
	tg, err := OpenTarget(parmfile.SD{Name: "sd1", Lun: lun, Size: 8 << 20, OpenFlags: flags}, TargetOptions{Write: true, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	st, err := os.Stat(lun)
	if err != nil || st.Size() != 8<<20 {
		t.Fatalf("file %v, %v: want 8 MiB", st, err)
	}
	if !tg.Created || tg.Device || tg.Capacity() != 8<<20 || tg.Direct != (flags == nil) ||
		tg.BlockSize() < 512 || tg.BlockSize() > 4096 || !strings.Contains(progress.String(), "preformatting") {
		t.Errorf("target %+v, progress %q", tg, progress.String())
	}
	t.Logf("%s on %s: block size %d, O_DIRECT %v", lun, tg.FileSystem, tg.BlockSize(), tg.Direct)
	// The preformat wrote the data pattern after 128 KiB of zeros: no
	// signature, so the file can be reopened for writing.
	tg.Close()
	tg, err = OpenTarget(parmfile.SD{Name: "sd1", Lun: lun, Size: 8 << 20, OpenFlags: flags}, TargetOptions{Write: true})
	if err != nil {
		t.Fatalf("reopening the preformatted file: %v", err)
	}
	if tg.Created {
		t.Error("an existing file of the right size was preformatted again")
	}
	tg.Close()
	data, err := os.ReadFile(lun)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(data[1<<20:2<<20], data[2<<20:3<<20]) || bytes.Equal(data[1<<20:1<<20+4096], data[1<<20+4096:1<<20+8192]) {
		t.Error("the preformat wrote the same data twice: it deduplicates")
	}
	if _, err := OpenTarget(parmfile.SD{Name: "sd1", Lun: filepath.Join(dir, "missing")}, TargetOptions{}); err == nil ||
		!strings.Contains(err.Error(), "without size= it cannot be created") {
		t.Errorf("missing file without size=: %v", err)
	}
	if _, err := OpenTarget(parmfile.SD{Name: "sd1", Lun: lun, OpenFlags: []string{"o_bogus"}}, TargetOptions{}); err == nil ||
		!strings.Contains(err.Error(), "openflags=o_bogus is not known") {
		t.Errorf("bad openflags: %v", err)
	}
}

// TestRefuseSignature: a file that carries an ext4 superblock is refused
// for writing (the check applies to every existing target that will be
// written), accepted with Force and OverwriteFiles (vmbench did not make
// it: Force alone is not enough), and accepted for reading.
func TestRefuseSignature(t *testing.T) {
	lun := filepath.Join(t.TempDir(), "ext4.img")
	img := make([]byte, 1<<20)
	copy(img[1080:], []byte{0x53, 0xEF})
	binary.LittleEndian.PutUint32(img[1024+24:], 2)
	if err := os.WriteFile(lun, img, 0o644); err != nil {
		t.Fatal(err)
	}
	sd := parmfile.SD{Name: "sd1", Lun: lun, OpenFlags: []string{"none"}}
	_, err := OpenTarget(sd, TargetOptions{Write: true})
	if err == nil || !strings.Contains(err.Error(), lun+" carries a ext2/3/4 file system signature") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("write to an ext4 image: %v, want a refusal naming the file and the file system", err)
	}
	// Growing it with size= writes to it too.
	if _, err := OpenTarget(parmfile.SD{Name: "sd1", Lun: lun, Size: 2 << 20, OpenFlags: []string{"none"}}, TargetOptions{}); err == nil {
		t.Error("preformatting over an ext4 image was not refused")
	}
	if _, err := OpenTarget(sd, TargetOptions{Write: true, Force: true}); err == nil || strings.Contains(err.Error(), "signature") ||
		!strings.Contains(err.Error(), lun+" is an existing file that vmbench did not make") {
		t.Errorf("write to an ext4 image with Force alone: %v, want the refusal of a file vmbench did not make", err)
	}
	for _, o := range []TargetOptions{{Write: true, Force: true, OverwriteFiles: true}, {}} {
		tg, err := OpenTarget(sd, o)
		if err != nil {
			t.Errorf("options %+v: %v", o, err)
			continue
		}
		tg.Close()
	}
	// The run refuses before any I/O.
	run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: time.Second}, parmfile.WD{RdPct: 50}, sd)
	if _, err := Execute(t.Context(), run, Options{}); err == nil || !strings.Contains(err.Error(), "sd=sd1: "+lun+" carries") {
		t.Errorf("Execute on an ext4 image: %v", err)
	}
}

// TestDirectRefused: a file system that refuses O_DIRECT is named, with
// the openflags=none suggestion. tmpfs accepts O_DIRECT since Linux 6.6,
// so the test skips where /dev/shm accepts it.
func TestDirectRefused(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "vmbench-")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	defer os.RemoveAll(dir)
	tg, err := OpenTarget(parmfile.SD{Name: "sd1", Lun: filepath.Join(dir, "t.img"), Size: 1 << 20}, TargetOptions{Write: true})
	if err == nil {
		tg.Close()
		t.Skipf("%s (%s) accepts O_DIRECT here", dir, fsName(dir))
	}
	if !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), "tmpfs file system, which refuses O_DIRECT") ||
		!strings.Contains(err.Error(), "openflags=none") {
		t.Errorf("error %v", err)
	}
}

// TestRealFile runs O_DIRECT random reads and writes on a 64 MiB file for
// a second.
func TestRealFile(t *testing.T) {
	dir := directDir(t)
	flags := []string(nil)
	if dir == "" {
		dir, flags = t.TempDir(), []string{"none"}
	}
	lun := filepath.Join(dir, "real.img")
	run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: time.Second, Interval: 500 * time.Millisecond},
		parmfile.WD{RdPct: 50, Seek: parmfile.Seek{Pct: 100}}, parmfile.SD{Name: "sd1", Lun: lun, Size: 64 << 20, Threads: 4, OpenFlags: flags})
	cr, err := Execute(t.Context(), run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := cr.Points[0]
	r := p.Result
	reads, writes := r.Ops[OpRead].Latency.Count, r.Ops[OpWrite].Latency.Count
	ios, by := phaseTotals(r)
	if reads == 0 || writes == 0 || by[0] < 4096*ios[0] || by[1] < 4096*ios[1] || by[0]+by[1] > 4096*(ios[0]+ios[1]+4) {
		t.Errorf("reads %d writes %d; over both phases %v I/Os, %v bytes", reads, writes, ios, by)
	}
	if p.Achieved <= 0 || r.Elapsed < 400*time.Millisecond || r.Elapsed > 2*time.Second {
		t.Errorf("achieved %.0f IOPS over %v", p.Achieved, r.Elapsed)
	}
	if st, err := os.Stat(lun); err != nil || st.Size() != 64<<20 {
		t.Errorf("target file: %v, %v", st, err)
	}
	t.Logf("%s: %.0f IOPS, %d reads and %d writes of 4 KiB, O_DIRECT %v", lun, p.Achieved, reads, writes, flags == nil)
}

func TestCheckDeviceFree(t *testing.T) {
	root := t.TempDir()
	write := func(path, data string) {
		t.Helper()
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(path string) {
		if err := os.MkdirAll(filepath.Join(root, path), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// sda with partitions sda1 (8:1, mounted on /data) and sda2 (8:2, swap);
	// sdb held by dm-0; sdc free; sdd whose source is named by path.
	for _, d := range []struct{ name, dev string }{{"sda", "8:0"}, {"sdb", "8:16"}, {"sdc", "8:32"}, {"sdd", "8:48"}} {
		write("block/"+d.name+"/dev", d.dev+"\n")
		mkdir("block/" + d.name + "/holders")
	}
	write("block/sda/sda1/dev", "8:1\n")
	write("block/sda/sda1/partition", "1\n")
	write("block/sda/sda2/dev", "8:2\n")
	write("block/sda/sda2/partition", "2\n")
	mkdir("block/sda1/holders")
	mkdir("block/sda2/holders")
	write("block/sdb/holders/dm-0", "")
	write("mountinfo", "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"+
		"40 26 8:1 / /data\\040disk rw,relatime - xfs /dev/sda1 rw\n"+
		"41 26 0:45 / /mnt/b rw - btrfs /dev/sdd rw\n")
	write("swaps", "Filename\tType\tSize\tUsed\tPriority\n/dev/sda2  partition\t1000\t0\t-2\n")
	h := hostFiles{mountinfo: filepath.Join(root, "mountinfo"), swaps: filepath.Join(root, "swaps"), sysBlock: filepath.Join(root, "block")}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"sda", []string{"refusing to write to /dev/sda (sda)", "/dev/sda1 is mounted on /data disk (xfs)", "/dev/sda2 is in use as swap"}},
		{"sdb", []string{"/dev/sdb is held by dm-0"}},
		{"sdc", nil},
		{"sdd", []string{"/dev/sdd is mounted on /mnt/b (btrfs)"}},
	} {
		err := h.checkDeviceFree("/dev/"+tc.name, tc.name)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v, want no objection", tc.name, err)
			}
			continue
		}
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to say %q", tc.name, err, w)
			}
		}
	}
}

func TestParseOpenFlags(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want openFlags
	}{
		{nil, openFlags{direct: true}},
		{[]string{"o_direct"}, openFlags{direct: true}},
		{[]string{"none"}, openFlags{}},
		{[]string{"directio", "O_DSYNC", "fsync"}, openFlags{direct: true, sys: unix.O_DSYNC, fsync: true}},
		{[]string{"o_sync", "clear_cache"}, openFlags{sys: unix.O_SYNC, clearCache: true}},
	} {
		got, err := parseOpenFlags(tc.in, unix.O_DSYNC, unix.O_SYNC)
		if err != nil || got != tc.want {
			t.Errorf("parseOpenFlags(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}
