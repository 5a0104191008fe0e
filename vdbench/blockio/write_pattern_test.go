//go:build linux

package blockio

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"vmbench/oltp/hist"
	"vmbench/vdbench/parmfile"
)

// recordWrites passes a worker's I/O on and records the offset of each
// write and the thread that issued it.
type recordWrites struct {
	ioPath
	thread int
	by     map[int64]int
}

func (r *recordWrites) WriteAt(p []byte, off int64) (int, error) {
	r.by[off] = r.thread
	return r.ioPath.WriteAt(p, off)
}

// samePattern reports whether block carries pattern, scrambled
// (scrambleWrite): every 8-byte word XORed with the same word.
func samePattern(block, pattern []byte) bool {
	d := binary.LittleEndian.Uint64(block) ^ binary.LittleEndian.Uint64(pattern)
	for i := 0; i+8 <= len(block); i += 8 {
		if binary.LittleEndian.Uint64(block[i:])^binary.LittleEndian.Uint64(pattern[i:]) != d {
			return false
		}
	}
	return d != 0
}

// A mixed workload (rdpct=50, 4 KiB random) on a zero-filled real file
// writes only its threads' patterns, with either engine: a write never
// carries what the thread last read. Every written block carries the
// pattern of the thread that wrote it, no two written blocks are equal
// (each write is scrambled: nothing to deduplicate), and the blocks never written are
// still zeros.
func TestMixedWritesCarryPattern(t *testing.T) {
	const block, blocks, threads, events = 4096, 1024, 2, 4000
	for _, engine := range []string{EnginePsync, EngineURing} {
		t.Run(engine, func(t *testing.T) {
			if engine == EngineURing {
				needURing(t)
			}
			path := filepath.Join(t.TempDir(), "mixed.img")
			if err := os.WriteFile(path, make([]byte, block*blocks), 0o600); err != nil {
				t.Fatal(err)
			}
			sd := parmfile.SD{Name: "sd1", Lun: path, Threads: threads, OpenFlags: []string{"none"}}
			tg, err := OpenTarget(sd, TargetOptions{Write: true, OverwriteFiles: true}) // a file of zeros the test made
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			wd := parmfile.WD{Name: "wd1", SDs: []string{"sd1"}, RdPct: 50, Seek: parmfile.Seek{Pct: 100}, Xfer: parmfile.XferSize{Sizes: []int64{block}, Pcts: []float64{100}}}
			m, err := newMix(sd, wd, tg.Capacity(), tg.BlockSize())
			if err != nil {
				t.Fatal(err)
			}
			l := &sdLoad{sd: sd, backend: tg, mixes: []*mix{m}, cum: []float64{1}, bufs: bufSizes{read: block, write: block}}
			if engine == EngineURing {
				if err := setUpRings([]*sdLoad{l}); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := closeRings([]*sdLoad{l}); err != nil {
						t.Error(err)
					}
				}()
				t.Logf("buffers registered with the ring (READ_FIXED/WRITE_FIXED): %v, %d per slot", l.ring.fixed, l.ring.perSlot)
			}
			by := map[int64]int{}
			reg := hist.NewRegistry(ioOps, ioCounters)
			spec := l.spec("rd1", 0)
			ws := make([]*worker, threads)
			patterns := make([][]byte, threads)
			for i := range ws {
				w, err := spec.NewWorker(context.Background(), i, reg.NewHandle())
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				ws[i] = w.(*worker)
				ws[i].dev = &recordWrites{ioPath: ws[i].dev, thread: i, by: by}
				patterns[i] = make([]byte, block)
				fillPattern(patterns[i], ws[i].key)
			}
			reads := 0
			for e := range events {
				op, err := ws[e%threads].Event(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if op == OpRead {
					reads++
				}
			}
			if reads < events/3 || len(by) < blocks/2 {
				t.Fatalf("%d reads and %d blocks written of %d events: not a mixed workload", reads, len(by), events)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			zero := make([]byte, block)
			seen := map[string]int64{}
			for b := range int64(blocks) {
				got := data[b*block : (b+1)*block]
				thread, written := by[b*block]
				switch {
				case !written && !bytes.Equal(got, zero):
					t.Errorf("block %d was never written but is not zeros", b)
				case written && !samePattern(got, patterns[thread]):
					t.Errorf("block %d, written by thread %d, does not carry its write pattern (zeros: %v)", b, thread, bytes.Equal(got, zero))
				case written:
					if prev, dup := seen[string(got)]; dup {
						t.Errorf("blocks %d and %d are equal: written data deduplicates", prev, b)
					}
					seen[string(got)] = b
				}
			}
			t.Logf("%s: %d events, %d reads, %d distinct blocks written, all carrying their thread's pattern", engine, events, reads, len(by))
		})
	}
}

// BenchmarkScrambleWrite is the CPU cost scrambleWrite adds to a write.
func BenchmarkScrambleWrite(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10, 1 << 20} {
		b.Run(parmfile.FormatSize(int64(size)), func(b *testing.B) {
			p := make([]byte, size)
			fillPattern(p, 1)
			b.SetBytes(int64(size))
			for i := range b.N {
				scrambleWrite(p, 7, uint64(i))
			}
		})
	}
}
