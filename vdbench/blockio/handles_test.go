package blockio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"unsafe"
)

// newTestPool makes a handlePool over a real file of size bytes in a
// temporary directory, as the Windows Target does (the pool is portable;
// Windows itself cannot run here).
func newTestPool(t *testing.T, size int) (*handlePool, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lun.img")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() (*os.File, error) { return os.OpenFile(path, os.O_RDWR, 0) }
	f, err := open()
	if err != nil {
		t.Fatal(err)
	}
	p := newHandlePool(path, f, open)
	t.Cleanup(func() { _ = p.close() })
	return p, path
}

// Handles in use at the same time are distinct, the pool opens only as
// many as were in use at once, and handles given back are reused.
func TestHandlePoolGrowsToConcurrency(t *testing.T) {
	p, _ := newTestPool(t, 4096)
	var held []*os.File
	for range 3 {
		f, err := p.get()
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range held {
			if h == f {
				t.Fatalf("get returned handle %p twice while it was in use", f)
			}
		}
		held = append(held, f)
	}
	for _, f := range held {
		p.put(f)
	}
	for range 3 {
		f, err := p.get()
		if err != nil {
			t.Fatal(err)
		}
		defer p.put(f)
	}
	if len(p.all) != 3 {
		t.Errorf("pool opened %d handles for 3 concurrent users, want 3", len(p.all))
	}
}

// Concurrent positioned writes and reads through the pool land where they
// were addressed (run under -race).
func TestHandlePoolConcurrentIO(t *testing.T) {
	const threads, block, blocks = 4, 4096, 32
	p, path := newTestPool(t, block*blocks)
	var wg sync.WaitGroup
	errs := make(chan error, threads)
	for w := range threads {
		wg.Go(func() {
			buf := heapAligned(block, 4096)
			for b := w; b < blocks; b += threads {
				for i := range buf {
					buf[i] = byte(b)
				}
				if _, err := p.writeAt(buf, int64(b)*block); err != nil {
					errs <- err
					return
				}
				got := heapAligned(block, 4096)
				if _, err := p.readAt(got, int64(b)*block); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(got, buf) {
					errs <- fmt.Errorf("block %d read back differs from what was written", b)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for b := range blocks {
		if data[b*block] != byte(b) || data[(b+1)*block-1] != byte(b) {
			t.Errorf("block %d of the file holds %d, want %d", b, data[b*block], b)
		}
	}
}

func TestHandlePoolErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(p *handlePool) error
		want error
	}{
		{"read past the end", func(p *handlePool) error {
			_, err := p.readAt(make([]byte, 4096), 2048)
			return err
		}, io.ErrUnexpectedEOF},
		{"read after close", func(p *handlePool) error {
			_ = p.close()
			_, err := p.readAt(make([]byte, 512), 0)
			return err
		}, os.ErrClosed},
		{"write after close", func(p *handlePool) error {
			_ = p.close()
			_, err := p.writeAt(make([]byte, 512), 0)
			return err
		}, os.ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestPool(t, 4096)
			if err := tc.do(p); !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestHeapAligned(t *testing.T) {
	for _, tc := range []struct{ n, align int }{{0, 4096}, {1, 4096}, {512, 512}, {1 << 20, 4096}, {4096, 8}} {
		b := heapAligned(tc.n, tc.align)
		if len(b) != tc.n || cap(b) != tc.n {
			t.Errorf("heapAligned(%d, %d): len %d cap %d, want both %d", tc.n, tc.align, len(b), cap(b), tc.n)
		}
		if tc.n > 0 && uintptr(unsafe.Pointer(&b[0]))%uintptr(tc.align) != 0 {
			t.Errorf("heapAligned(%d, %d) starts at %p, not aligned", tc.n, tc.align, &b[0])
		}
	}
}
