//go:build linux

package blockio

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // database/sql driver "sqlite": a real SQLite file to refuse

	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

// targetDir is a directory for real file targets and their openflags:
// O_DIRECT where the file system accepts it, else buffered.
func targetDir(t *testing.T) (string, []string) {
	t.Helper()
	if dir := directDir(t); dir != "" {
		return dir, nil
	}
	return t.TempDir(), []string{"none"}
}

// randomBytes returns n bytes of a seeded random stream.
func randomBytes(seed byte, n int) []byte {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{seed}).Read(b) // never fails
	return b
}

// sqliteFile writes a real SQLite database of a few pages at path.
func sqliteFile(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL)"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		if _, err := tx.Exec("INSERT INTO orders (customer, total) VALUES (?, ?)", fmt.Sprintf("customer %d", i), float64(i)*1.5); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// foreignFiles writes files vmbench did not make into dir: a SQLite
// database, a text file, a binary file, a binary file whose first 64 KiB
// are zeros (so the search for vmbench's fill runs) and a file of zeros.
func foreignFiles(t *testing.T, dir string) []string {
	t.Helper()
	db := filepath.Join(dir, "app.sqlite")
	sqliteFile(t, db)
	files := []string{db}
	for name, data := range map[string][]byte{
		"notes.txt":       []byte(strings.Repeat("Meeting notes: nothing here may be lost.\n", 300)),
		"blob.bin":        randomBytes(1, 3<<20),
		"zero-headed.img": append(make([]byte, 64<<10), randomBytes(2, 3<<20)...),
		"zeros.img":       make([]byte, 2<<20),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

// TestFilesVmbenchDidNotMakeAreRefused: an existing file that vmbench did
// not make (a SQLite database, a text file, binary files, zeros) is
// refused, naming the file and --overwrite-files, for a run that writes
// to it, for one that would extend it to size= (the preformat), and by
// CheckTargets; its bytes and size are unchanged. A run that only reads
// it is accepted. With OverwriteFiles it is written to and extended.
func TestFilesVmbenchDidNotMakeAreRefused(t *testing.T) {
	dir, flags := targetDir(t)
	for _, lun := range foreignFiles(t, dir) {
		t.Run(filepath.Base(lun), func(t *testing.T) {
			before, err := os.ReadFile(lun)
			if err != nil {
				t.Fatal(err)
			}
			refused := func(what string, err error) {
				t.Helper()
				if err == nil || !strings.Contains(err.Error(), lun+" is an existing file that vmbench did not make") ||
					!strings.Contains(err.Error(), "--overwrite-files") {
					t.Errorf("%s: %v, want a refusal naming %s and --overwrite-files", what, err, lun)
				}
				if after, _ := os.ReadFile(lun); !bytes.Equal(after, before) {
					t.Errorf("%s: the file changed (%d bytes, was %d)", what, len(after), len(before))
				}
			}
			sd := parmfile.SD{Name: "sd1", Lun: lun, OpenFlags: flags}
			grown := sd
			grown.Size = 4 << 20
			_, err = OpenTarget(sd, TargetOptions{Write: true})
			refused("a run that writes", err)
			_, err = OpenTarget(grown, TargetOptions{})
			refused("extending it to size=4m", err)
			writes := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: time.Second}, parmfile.WD{RdPct: 50}, sd)
			refused("CheckTargets of a run that writes", CheckTargets([]parmfile.Run{writes}, TargetOptions{Force: true}))
			reads := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: time.Second}, parmfile.WD{RdPct: 100}, grown)
			refused("CheckTargets of a read-only run that extends it", CheckTargets([]parmfile.Run{reads}, TargetOptions{}))
			_, err = Execute(t.Context(), writes, Options{})
			refused("Execute", err)
			if tg, err := OpenTarget(sd, TargetOptions{}); err != nil {
				t.Errorf("opening it to read: %v", err)
			} else {
				tg.Close()
			}

			tg, err := OpenTarget(grown, TargetOptions{Write: true, OverwriteFiles: true})
			if err != nil {
				t.Fatalf("with OverwriteFiles: %v", err)
			}
			tg.Close()
			if st, err := os.Stat(lun); err != nil || st.Size() < 4<<20 {
				t.Errorf("with OverwriteFiles the file was not extended to size=: %v, %v", st, err)
			}
		})
	}
}

// TestFileVmbenchMadeIsReused: a file OpenTarget creates starts with
// vmbench's label (no signature); a run that writes over it leaves the
// label alone, and the file is written to again without OverwriteFiles.
func TestFileVmbenchMadeIsReused(t *testing.T) {
	dir, flags := targetDir(t)
	lun := filepath.Join(dir, "own.img")
	sd := parmfile.SD{Name: "sd1", Lun: lun, Size: 8 << 20, Threads: 4, OpenFlags: flags}
	tg, err := OpenTarget(sd, TargetOptions{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	tg.Close()
	head := func() []byte {
		f, err := os.Open(lun)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := make([]byte, sigBytes)
		if _, err := f.ReadAt(b, 0); err != nil {
			t.Fatal(err)
		}
		return b
	}
	label := make([]byte, labelBytes)
	putLabel(label)
	if h := head(); !bytes.Equal(h[:labelBytes], label) || !allZero(h[labelBytes:fillStart/2]) {
		t.Fatalf("a new file starts %q, want vmbench's label and zeros", h[:64])
	}
	if what, _ := Signature(bytes.NewReader(head())); what != "" {
		t.Errorf("vmbench's label is taken for a %s", what)
	}
	run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: time.Second, Interval: 500 * time.Millisecond},
		parmfile.WD{RdPct: 0, Seek: parmfile.Seek{Pct: 100}, Xfer: parmfile.Single(512)}, sd)
	if err := CheckTargets([]parmfile.Run{run}, TargetOptions{}); err != nil {
		t.Fatalf("CheckTargets: %v", err)
	}
	cr, err := Execute(t.Context(), run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := cr.Points[0].Result.Ops[OpWrite].Latency.Count; n == 0 {
		t.Fatal("the run wrote nothing")
	}
	if h := head(); !bytes.Equal(h[:labelBytes], label) {
		t.Errorf("a run of 512-byte random writes changed the label: %q", h[:64])
	}
	tg, err = OpenTarget(sd, TargetOptions{Write: true})
	if err != nil {
		t.Fatalf("reopening the file vmbench made, after a run: %v", err)
	}
	tg.Close()
}

// legacyFill writes what a vmbench from before the label made: 128 KiB
// of zeros, then the preformat's 1 MiB transfers of fillPattern(seed 1),
// each scrambled (scrambleWrite) when scrambled, as 74d6eb4 did, and
// unscrambled as 3143405 did.
func legacyFill(t *testing.T, path string, size int, scrambled bool) []byte {
	t.Helper()
	data := make([]byte, size)
	buf := make([]byte, fillChunk)
	fillPattern(buf, 1)
	for off := fillStart; off < size; off += fillChunk {
		if scrambled {
			scrambleWrite(buf, 1, uint64(off))
		}
		copy(data[off:], buf)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestFileAnEarlierVmbenchMadeIsLabelled: a file made before the label
// (zeros where it goes, the fill after 128 KiB) is recognised by its fill,
// also when runs have overwritten most of it; CheckTargets accepts it and
// changes nothing, and the run's open labels it, changing nothing else.
func TestFileAnEarlierVmbenchMadeIsLabelled(t *testing.T) {
	dir, flags := targetDir(t)
	for _, tc := range []struct {
		name          string
		scrambled     bool
		overwriteUpTo int // random data from 128 KiB to here, as runs leave
	}{
		{"scrambled fill", true, 0},
		{"unscrambled fill", false, 0},
		{"fill left only in its last MiB", true, 7 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lun := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".img")
			data := legacyFill(t, lun, 8<<20, tc.scrambled)
			if tc.overwriteUpTo > 0 {
				copy(data[fillStart:tc.overwriteUpTo], randomBytes(3, tc.overwriteUpTo-fillStart))
				if err := os.WriteFile(lun, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sd := parmfile.SD{Name: "sd1", Lun: lun, OpenFlags: flags}
			run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: time.Second}, parmfile.WD{RdPct: 0}, sd)
			if err := CheckTargets([]parmfile.Run{run}, TargetOptions{}); err != nil {
				t.Fatalf("CheckTargets: %v", err)
			}
			if got, _ := os.ReadFile(lun); !bytes.Equal(got, data) {
				t.Fatal("CheckTargets changed the file")
			}
			var progress strings.Builder
			tg, err := OpenTarget(sd, TargetOptions{Write: true, Progress: &progress})
			if err != nil {
				t.Fatal(err)
			}
			tg.Close()
			if !strings.Contains(progress.String(), lun+": made by an earlier vmbench") {
				t.Errorf("progress %q", progress.String())
			}
			got, _ := os.ReadFile(lun)
			putLabel(data)
			if !bytes.Equal(got, data) {
				t.Errorf("after the open the file starts %q; want vmbench's label, and nothing else changed", got[:64])
			}
		})
	}
}

// TestIsFill: a 512-byte block of the preformat's fill is recognised at
// any 512-byte boundary of a transfer, whatever the transfer's scramble
// word; anything else is not.
func TestIsFill(t *testing.T) {
	p := make([]byte, fillChunk)
	fillPattern(p, 1)
	xor := func(b []byte, w uint64) []byte {
		out := bytes.Clone(b)
		for i := 0; i+8 <= len(out); i += 8 {
			binary.LittleEndian.PutUint64(out[i:], binary.LittleEndian.Uint64(out[i:])^w)
		}
		return out
	}
	flipped := bytes.Clone(p[4096:4608])
	flipped[300] ^= 0x10
	run := make([]byte, 512)
	fillPattern(run, 12345) // a run's write buffer: another seed
	for _, tc := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"first block", p[:512], true},
		{"last block", p[fillChunk-512:], true},
		{"middle, scrambled", xor(p[123*512:124*512], 0xdeadbeefcafe1234), true},
		{"one bit flipped", flipped, false},
		{"not on a 512-byte boundary", p[1000:1512], false},
		{"zeros", make([]byte, 512), false},
		{"random", randomBytes(4, 512), false},
		{"a run's write pattern", run, false},
		{"label", func() []byte { b := make([]byte, 512); putLabel(b); return b }(), false},
	} {
		if got := isFill(tc.b); got != tc.want {
			t.Errorf("%s: isFill = %v, want %v", tc.name, got, tc.want)
		}
	}
	if len(ownLabel) > labelBytes-2 {
		t.Errorf("the label is %d bytes: it must leave bytes 510-511 (the MBR magic) zero", len(ownLabel))
	}
}

// TestProbeOffsets: the fill is looked for at most probeReads times,
// at multiples of probeBytes from 128 KiB to the end of the file.
func TestProbeOffsets(t *testing.T) {
	for _, size := range []int64{fillStart + 1, fillStart + probeBytes, 1 << 20, 8 << 20, 1 << 40, 1<<62 + 12345} {
		offs := probeOffsets(size)
		want := min(probeReads, (size-fillStart+probeBytes-1)/probeBytes)
		if int64(len(offs)) != want || offs[0] != fillStart {
			t.Errorf("size %d: %d offsets from %d, want %d from %d", size, len(offs), offs[0], want, fillStart)
		}
		for i, off := range offs {
			if off%probeBytes != 0 || off >= size || i > 0 && off <= offs[i-1] {
				t.Errorf("size %d: offset %d (%d of %v) is not valid", size, off, i, offs)
			}
		}
	}
}
