package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// foreignTargets writes three files vmbench did not make into dir: a
// SQLite database, a text file and a binary file.
func foreignTargets(t *testing.T, dir string) []string {
	t.Helper()
	db := filepath.Join(dir, "shop.sqlite")
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO items (name) VALUES ('kept'), ('also kept')"} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	text := filepath.Join(dir, "notes.txt")
	bin := filepath.Join(dir, "blob.bin")
	data := make([]byte, 200<<10)
	_, _ = rand.NewChaCha8([32]byte{7}).Read(data) // ChaCha8.Read never fails
	for p, b := range map[string][]byte{text: []byte(strings.Repeat("not benchmark data\n", 100)), bin: data} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{db, text, bin}
}

// writeRun is vmbench vdbench run of a parameter file (in a directory of
// its own) that writes 4 KiB at random over the first 1 MiB of each
// target (size=1m: a smaller file is extended to it), a max run and one
// point at 50%, 2 s each.
func writeRun(t *testing.T, targets ...string) []string {
	var b strings.Builder
	var sds []string
	for i, f := range targets {
		fmt.Fprintf(&b, "sd=sd%d,lun=%s,size=1m,threads=2\n", i+1, f)
		sds = append(sds, fmt.Sprintf("sd%d", i+1))
	}
	b.WriteString("wd=wd1,sd=(" + strings.Join(sds, ",") + "),xfersize=4k,rdpct=0\n")
	b.WriteString("rd=rd1,wd=wd1,iorate=curve,curve=(50),elapsed=2,interval=1,warmup=0\n")
	return []string{"vdbench", "run", writeFile(t, "write.vdb", b.String())}
}

// TestVdbenchRefusesFilesItDidNotMake: a SQLite database, a text file and
// a binary file given as targets, to vdbench run or in a block-suite
// file, are refused (exit 2, the file and --overwrite-files named,
// nothing written: bytes and size unchanged). With --overwrite-files they
// are written to; a file vmbench created is written to again without it.
func TestVdbenchRefusesFilesItDidNotMake(t *testing.T) {
	dir := t.TempDir()
	files := foreignTargets(t, dir)
	before := map[string][]byte{}
	for _, f := range files {
		before[f], _ = os.ReadFile(f)
	}
	unchanged := func(t *testing.T) {
		t.Helper()
		for _, f := range files {
			if after, err := os.ReadFile(f); err != nil || !bytes.Equal(after, before[f]) {
				t.Errorf("%s changed: %d bytes, was %d (%v)", f, len(after), len(before[f]), err)
			}
		}
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			runRefused(t, t.TempDir(), writeRun(t, f), []string{f + " is an existing file that vmbench did not make", "--overwrite-files"})
			unchanged(t)
		})
	}
	t.Run("block suite", func(t *testing.T) {
		suite := writeFile(t, "files.yaml", "kind: block-suite\nname: files\ntargets: ["+strings.Join(files, ", ")+"]\n"+
			"profiles: [4k-random-write]\nsize: 1m\nthreads: 2\nelapsed: 2\ninterval: 1\nwarmup: 0\ncurve: [50]\n")
		want := []string{"overwrite-files: true"}
		for _, f := range files {
			want = append(want, f+" is an existing file that vmbench did not make")
		}
		runRefused(t, t.TempDir(), []string{"campaign", "run", suite}, want)
		unchanged(t)
	})
	if t.Failed() {
		return
	}
	own := filepath.Join(dir, "own.img")
	code, _, stderr := runCLI(t, nil, append(writeRun(t, append(files, own)...), "--overwrite-files", "-o", filepath.Join(t.TempDir(), "out"))...)
	if code != 0 {
		t.Fatalf("with --overwrite-files: exit %d\n%s", code, stderr)
	}
	for _, f := range files {
		if after, _ := os.ReadFile(f); len(after) != 1<<20 || bytes.Equal(after[:len(before[f])], before[f]) {
			t.Errorf("%s with --overwrite-files: %d bytes, contents unchanged %v; want it extended to 1m and written to", f, len(after), bytes.Equal(after[:min(len(after), len(before[f]))], before[f]))
		}
	}
	if code, _, stderr := runCLI(t, nil, append(writeRun(t, own), "-o", filepath.Join(t.TempDir(), "out"))...); code != 0 {
		t.Errorf("a file vmbench made, again without --overwrite-files: exit %d\n%s", code, stderr)
	}
}
