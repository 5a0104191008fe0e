package sysbench

import (
	"testing"

	"vmbench/dialect"
)

// BenchmarkLoadChunk generates sbtest rows for LOAD DATA; per row it
// should allocate nothing.
func BenchmarkLoadChunk(b *testing.B) {
	cfg := DefaultConfig()
	cfg.TableSize = 1 << 40
	src := newRowSource(cfg, 1, 1)
	var w dialect.RowWriter
	c := &loadChunk{src: src, left: -1, p: &loadProgress{}}
	b.ReportAllocs()
	for b.Loop() {
		if w.Reset(); !c.NextRow(&w) {
			b.Fatal("no row")
		}
	}
	b.SetBytes(int64(len(w.Bytes())))
}

// BenchmarkAppendRow is the INSERT path's row, for comparison.
func BenchmarkAppendRow(b *testing.B) {
	cfg := DefaultConfig()
	cfg.TableSize = 1 << 40
	src := newRowSource(cfg, 1, 1)
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = src.appendRow(buf[:0])
	}
	b.SetBytes(int64(len(buf)))
}
