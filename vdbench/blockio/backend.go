package blockio

import (
	"fmt"
	"io"
	"math/rand/v2"
	"unsafe"
)

// Backend is where an SD's I/O goes: the real Target or, in tests, a fake
// device. On unix systems Target does blocking pread(2)/pwrite(2) on its
// descriptor (backend_unix.go); on Windows, positioned os.File ReadAt and
// WriteAt on a pool of handles to the lun (backend_other.go). ReadAt and
// WriteAt are called concurrently by the SD's threads, with buffers,
// offsets and lengths aligned to the logical block size.
type Backend interface {
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Close() error
}

// Geometry is implemented by backends that know their target's logical
// block size and capacity, as Target does. For a Backend without it the
// engine takes the SD's size= as the capacity and 512-byte blocks.
type Geometry interface {
	BlockSize() int64
	Capacity() int64
}

func checkIO(n, want int, err error) (int, error) {
	if err != nil {
		return max(n, 0), err
	}
	if n < want {
		return n, fmt.Errorf("%d of %d bytes transferred: %w", n, want, io.ErrUnexpectedEOF)
	}
	return n, nil
}

// fillPattern fills b with pseudo-random bytes from seed: written data
// that does not compress (vdbench's compratio=1 default). A worker fills
// its write buffer once and scrambles it before each write
// (scrambleWrite), so its writes do not deduplicate either.
func fillPattern(b []byte, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x76646265))
	for i := 0; i+8 <= len(b); i += 8 {
		v := r.Uint64()
		for k := range 8 {
			b[i+k] = byte(v >> (8 * k))
		}
	}
}

// scrambleWrite makes the n-th write of the thread keyed key unique: it
// XORs every 8-byte word of p with one word drawn from key and n. The
// pattern stays incompressible, two writes share no run of bytes (so
// neither a deduplicating array nor a compressor working across blocks
// finds a match), and the cost is one pass over p, far less than
// regenerating it.
func scrambleWrite(p []byte, key, n uint64) {
	if len(p) < 8 {
		return
	}
	d := mix64(key ^ mix64(n))
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&p[0])), len(p)/8)
	for i := range words {
		words[i] ^= d
	}
}

// mix64 is the splitmix64 finalizer: a bijection of 64-bit words whose
// outputs look random.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
