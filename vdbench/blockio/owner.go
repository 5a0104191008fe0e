package blockio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Which existing files vmbench writes to.
//
// vmbench writes to (or extends) an existing regular file only when it
// can tell that the file is its own. A file vmbench made starts with its
// label (ownLabel): the preformat writes it into the first 512 bytes, and
// no run writes there, since every span starts at least one block in
// (LBA 0 is never touched, as in vdbench). A file made by a vmbench from
// before the label has zeros there and, from 128 KiB on, its preformat's
// fill; one 512-byte block of that fill, found by reading the file at a
// few places, proves it (fileOwner), and the file is then labelled. Any
// other file (an SQLite database, a text file, an InnoDB .ibd, a file of
// zeros) is refused unless TargetOptions.OverwriteFiles
// (--overwrite-files). Block devices are not concerned: they have their
// in-use and signature checks.
//
// vdbench itself writes over any existing file given as lun=, and fio
// over any filename=; neither marks the files it makes.

const (
	// labelBytes is the part of a file target that holds vmbench's
	// label: its first 512 bytes, which no run writes.
	labelBytes = 512
	// ownMagic is the label's first line, by which vmbench knows its
	// files.
	ownMagic = "vmbench block-I/O target, label version 1\n"
	// ownLabel is what a file vmbench made starts with (zeros follow it
	// to labelBytes).
	ownLabel = ownMagic +
		"Made by vmbench (vmbench vdbench run, or a block suite) as a benchmark target: after\n" +
		"these 512 bytes it holds benchmark data only. vmbench writes to a file that starts\n" +
		"with this label without --overwrite-files; no run writes these 512 bytes.\n"
	// fillStart is where the preformat's fill starts: before it the file
	// holds the label and zeros, so it never looks like a file system.
	fillStart = 128 << 10
	// fillChunk is the preformat's transfer: fillPattern(seed 1), each
	// 8-byte word XORed with one word per transfer (scrambleWrite; the
	// same word, zero, before the scramble).
	fillChunk = 1 << 20
	// probeBytes and probeReads: fileOwner reads at most probeReads
	// pieces of probeBytes, spread over the fill, looking for the fill.
	probeBytes = 64 << 10
	probeReads = 64
)

// ownership is what vmbench can tell of an existing file's origin.
type ownership int

const (
	// notOwn: no label, and no fill found: not a file vmbench made.
	notOwn ownership = iota
	// ownLabelled: the file starts with vmbench's label.
	ownLabelled
	// ownFill: no label, but zeros where it would be and vmbench's fill
	// further on: made by a vmbench from before the label.
	ownFill
)

// fileOwner tells whether an existing file of size bytes, whose first
// bytes are head, is vmbench's own: labelled, or holding its preformat's
// fill (readAt reads it, into buffers aligned for O_DIRECT, at offsets
// that are multiples of probeBytes).
func fileOwner(head []byte, size int64, readAt func(p []byte, off int64) (int, error)) (ownership, error) {
	if bytes.HasPrefix(head, []byte(ownMagic)) {
		return ownLabelled, nil
	}
	if len(head) < labelBytes || !allZero(head[:labelBytes]) || size <= fillStart {
		return notOwn, nil
	}
	buf, err := alignedBuffer(probeBytes)
	if err != nil {
		return notOwn, err
	}
	defer freeBuffer(buf)
	for _, off := range probeOffsets(size) {
		n, err := readAt(buf, off)
		if err != nil && !errors.Is(err, io.EOF) {
			return notOwn, err
		}
		for b := 0; b+labelBytes <= n; b += labelBytes {
			if isFill(buf[b : b+labelBytes]) {
				return ownFill, nil
			}
		}
	}
	return notOwn, nil
}

// probeOffsets are where fileOwner reads a file of size bytes: up to
// probeReads offsets spread evenly from fillStart to its end, multiples
// of probeBytes.
func probeOffsets(size int64) []int64 {
	span := size - fillStart
	n := min(int64(probeReads), (span+probeBytes-1)/probeBytes)
	var offs []int64
	for k := range n {
		off := (fillStart + span/n*k) / probeBytes * probeBytes
		if len(offs) == 0 || off > offs[len(offs)-1] {
			offs = append(offs, off)
		}
	}
	return offs
}

// fillRef is the preformat's pattern as 8-byte little-endian words, and
// the offset (in words) of each 512-byte block of it by the XOR of its
// first two words, which the per-transfer scramble leaves unchanged.
type fillRef struct {
	words []uint64
	at    map[uint64]int
}

var fillReference = sync.OnceValue(func() *fillRef {
	b := make([]byte, fillChunk)
	fillPattern(b, 1)
	r := &fillRef{words: make([]uint64, fillChunk/8), at: make(map[uint64]int, fillChunk/labelBytes)}
	for i := range r.words {
		r.words[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	for j := 0; j < len(r.words); j += labelBytes / 8 {
		r.at[r.words[j]^r.words[j+1]] = j
	}
	return r
})

// isFill reports whether the 512 bytes b are a block of the preformat's
// fill: the pattern at a 512-byte boundary of a transfer, every word
// XORed with the same word. A chance match of 63 words of 64 bits is
// not a possibility that needs weighing.
func isFill(b []byte) bool {
	r := fillReference()
	w0, w1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	j, ok := r.at[w0^w1]
	if !ok {
		return false
	}
	x := w0 ^ r.words[j]
	for i := 2; i < labelBytes/8; i++ {
		if binary.LittleEndian.Uint64(b[8*i:])^r.words[j+i] != x {
			return false
		}
	}
	return true
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// putLabel writes vmbench's label into the first labelBytes of b, zeros
// after it.
func putLabel(b []byte) {
	clear(b[:labelBytes])
	copy(b, ownLabel)
}

// checkExisting checks an existing file target of size bytes, whose first
// bytes are head (read from offset 0 into an aligned buffer of at least
// blockSize bytes), before vmbench writes to it or extends it: it is
// refused when it carries a signature (unless o.Force) and when vmbench
// did not make it (unless o.OverwriteFiles), each refusal naming the
// file and the option that lifts it. A file that an earlier vmbench
// made (ownFill) gets the label, written with writeAt, unless o.checkOnly.
func checkExisting(lun string, head []byte, size, blockSize int64, o TargetOptions, readAt, writeAt func([]byte, int64) (int, error)) error {
	var sigErr, ownErr error
	if !o.Force {
		sigErr = refuseSignature(lun, bytes.NewReader(head))
	}
	if o.OverwriteFiles {
		return sigErr
	}
	own, err := fileOwner(head, size, readAt)
	switch {
	case err != nil:
		ownErr = fmt.Errorf("%s: reading it to tell whether vmbench made it: %w", lun, err)
	case own == notOwn:
		ownErr = foreignFile(lun, head)
	case own == ownFill && !o.checkOnly && sigErr == nil && int64(len(head)) >= blockSize:
		putLabel(head)
		if _, err := writeAt(head[:blockSize], 0); err != nil {
			return fmt.Errorf("%s: writing vmbench's label into its first 512 bytes: %w", lun, err)
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s: made by an earlier vmbench (its fill pattern is there): labelled as vmbench's in its first 512 bytes, which no run writes\n", lun)
		}
	}
	return errors.Join(sigErr, ownErr)
}

// foreignFile is the refusal of lun, an existing file that vmbench did
// not make, whose first bytes are head.
func foreignFile(lun string, head []byte) error {
	why := "no vmbench label in its first 512 bytes, and no vmbench fill pattern where it was looked for"
	if start := head[:min(len(head), 16)]; !allZero(start) {
		why = fmt.Sprintf("it begins %q, not with vmbench's label", start)
	}
	return fmt.Errorf("%s is an existing file that vmbench did not make (%s): refusing to write to it, which would destroy its contents; "+
		"name a file that does not exist (vmbench creates it), or run with --overwrite-files (in a block-suite file: overwrite-files: true) "+
		"if its contents may be destroyed", lun, why)
}
