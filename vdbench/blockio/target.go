package blockio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"vmbench/report"
	"vmbench/vdbench/parmfile"
)

// Target is an SD's lun opened for I/O: a block device or a regular file.
// It is the real Backend (pread/pwrite on its descriptor on unix systems,
// os.File ReadAt/WriteAt on a pool of handles elsewhere; see
// backend_unix.go and backend_other.go) and knows its Geometry.
type Target struct {
	// Lun is the path as given in sd=...,lun=.
	Lun string
	// Device is set for a block device, clear for a regular file.
	Device bool
	// BlockSize is the logical block size: BLKSSZGET for a device; for a
	// file the kernel's O_DIRECT offset alignment (statx DIOALIGN) when it
	// reports one, else the file system's block size clamped to
	// [512, 4096]; 512 for buffered I/O.
	Block int64
	// Size is the usable capacity in bytes: the device size
	// (BLKGETSIZE64) or the file size, capped by size=.
	Size int64
	// Direct is set when the lun is open with O_DIRECT.
	Direct bool
	// Created is set when OpenTarget created or extended (preformatted)
	// the file. A file OpenTarget creates is removed again when the
	// preformat fails or is interrupted, and a file it extends is cut back
	// to its size; neither happens once OpenTarget has returned.
	Created bool
	// FileSystem names the file system holding a file lun ("ext4",
	// "tmpfs"...), or the device's kernel name for a block device.
	FileSystem string
	// MemoryFS is set for a file on tmpfs or ramfs (Linux's statfs
	// f_type TMPFS_MAGIC or RAMFS_MAGIC): its I/O measures memory, not
	// a disk, even with O_DIRECT.
	MemoryFS bool

	platformTarget // per platform: backend_unix.go, backend_other.go
	f              *os.File
	fd             int
	fsync          bool // fsync on close (openflags=fsync)
}

// TargetOptions say how OpenTarget opens an SD's lun.
type TargetOptions struct {
	// Write is set when the run writes to the lun; the safety checks
	// then run first.
	Write bool
	// Force skips the partition-table and file-system signature check.
	// It never skips the in-use checks (mounted, swap, holders): the
	// kernel refuses an exclusive open of such a device anyway.
	Force bool
	// OverwriteFiles allows writing to, or extending, an existing regular
	// file that vmbench did not make (see fileOwner); without it such a
	// file is refused. Block devices are not concerned.
	OverwriteFiles bool
	// checkOnly is set by CheckTargets, which changes nothing: a file an
	// earlier vmbench made is then not labelled.
	checkOnly bool
	// Progress, if set, receives a line when a file is preformatted, and
	// progress lines during a long preformat.
	Progress io.Writer
	// Context, if set, stops a preformat between its transfers when it is
	// done (Ctrl-C); nil never stops.
	Context context.Context
}

// BlockSize is the target's logical block size (Geometry).
func (t *Target) BlockSize() int64 { return t.Block }

// Capacity is the target's usable size in bytes (Geometry).
func (t *Target) Capacity() int64 { return t.Size }

// openFlags is the meaning of sd=...,openflags=.
type openFlags struct {
	direct     bool
	sys        int // extra open(2) flags: O_DSYNC, O_SYNC
	fsync      bool
	clearCache bool
}

// parseOpenFlags reads vdbench's openflags values. With none given the
// lun is opened with O_DIRECT (vmbench's default; vdbench's is buffered,
// which measures the page cache); a list is applied exactly as given, as
// vdbench does, so openflags=o_dsync alone is buffered with O_DSYNC, and
// openflags=none is plain buffered I/O.
func parseOpenFlags(list []string, dsync, sync int) (openFlags, error) {
	if len(list) == 0 {
		return openFlags{direct: true}, nil
	}
	var f openFlags
	for _, v := range list {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "o_direct", "directio":
			f.direct = true
		case "o_dsync":
			f.sys |= dsync
		case "o_sync", "o_rsync":
			f.sys |= sync
		case "fsync":
			f.fsync = true
		case "clear_cache":
			f.clearCache = true
		case "none", "":
		default:
			return openFlags{}, fmt.Errorf("openflags=%s is not known (o_direct, directio, o_dsync, o_sync, o_rsync, fsync, clear_cache, none)", v)
		}
	}
	return f, nil
}

// sizeLine names the line of sd's size= for messages: " (line N)", or ""
// when size= was not given in a parameter file.
func sizeLine(sd parmfile.SD) string {
	if l := sd.KeyLine("size"); l > 0 {
		return fmt.Sprintf(" (line %d)", l)
	}
	return ""
}

// signature is a partition-table, volume-manager or file-system magic at a
// fixed byte offset.
type signature struct {
	off   int64
	magic []byte
	what  string
	// check, if set, must also accept the first bytes (plausibility of a
	// 2-byte magic, so random data left by a benchmark is not taken for a
	// file system).
	check func(b []byte) bool
}

// signatures are the magics Signature looks for, libblkid-style.
var signatures = []signature{
	{off: 512, magic: []byte("EFI PART"), what: "GPT partition table"},
	{off: 4096, magic: []byte("EFI PART"), what: "GPT partition table (4096-byte sectors)"},
	{off: 0, magic: []byte("XFSB"), what: "XFS file system"},
	{off: 3, magic: []byte("NTFS    "), what: "NTFS file system"},
	{off: 54, magic: []byte("FAT1"), what: "FAT12/16 file system", check: bootSector},
	{off: 82, magic: []byte("FAT32   "), what: "FAT32 file system", check: bootSector},
	{off: 3, magic: []byte("EXFAT   "), what: "exFAT file system"},
	{off: 1080, magic: []byte{0x53, 0xEF}, what: "ext2/3/4 file system", check: extSuper},
	{off: 65600, magic: []byte("_BHRfS_M"), what: "btrfs file system"},
	{off: 1024, magic: []byte{0x10, 0x20, 0xF5, 0xF2}, what: "F2FS file system"},
	{off: 0, magic: []byte("LUKS\xba\xbe"), what: "LUKS encrypted volume"},
	{off: 4096, magic: []byte{0xfc, 0x4e, 0x2b, 0xa9}, what: "Linux md RAID member (v1.2 superblock)"},
	{off: 0, magic: []byte{0xfc, 0x4e, 0x2b, 0xa9}, what: "Linux md RAID member (v1.1 superblock)"},
	{off: 32769, magic: []byte("CD001"), what: "ISO 9660 file system"},
	{off: 4086, magic: []byte("SWAPSPACE2"), what: "Linux swap area"},
	{off: 4086, magic: []byte("SWAP-SPACE"), what: "Linux swap area"},
	{off: 65526, magic: []byte("SWAPSPACE2"), what: "Linux swap area (64 KiB pages)"},
	// MBR last: a FAT or NTFS boot sector carries 0x55AA too and is named
	// more precisely above.
	{off: 510, magic: []byte{0x55, 0xAA}, what: "MBR partition table or boot sector (0x55AA)"},
}

// LVM2 writes its label in one of the first four 512-byte sectors.
var lvmOffsets = []int64{0, 512, 1024, 1536}

// sigBytes is how much of the start of a target Signature reads.
const sigBytes = 65608

func bootSector(b []byte) bool { return len(b) >= 512 && b[510] == 0x55 && b[511] == 0xAA }

// extSuper checks the ext superblock beside its magic: a block size of
// 1 KiB << s_log_block_size with s_log_block_size at most 6 (64 KiB).
func extSuper(b []byte) bool {
	return len(b) >= 1024+28 && binary.LittleEndian.Uint32(b[1024+24:]) <= 6
}

// Signature reads the start of r (a device or a file) and returns what it
// carries: a partition table, volume-manager label or file-system
// signature ("" for none). Short targets are read as far as they go.
func Signature(r io.ReaderAt) (string, error) {
	b := make([]byte, sigBytes)
	n, err := r.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	b = b[:n]
	for _, s := range signatures {
		end := s.off + int64(len(s.magic))
		if end > int64(len(b)) || !bytes.Equal(b[s.off:end], s.magic) {
			continue
		}
		if s.check != nil && !s.check(b) {
			continue
		}
		return s.what, nil
	}
	for _, off := range lvmOffsets {
		if off+32 <= int64(len(b)) && bytes.Equal(b[off:off+8], []byte("LABELONE")) && bytes.Equal(b[off+24:off+32], []byte("LVM2 001")) {
			return "LVM2 physical volume", nil
		}
	}
	return "", nil
}

// refuseSignature refuses the target lun, whose first bytes r reads, when
// it carries a signature.
func refuseSignature(lun string, r io.ReaderAt) error {
	what, err := Signature(r)
	if err != nil {
		return fmt.Errorf("%s: reading its first blocks to look for a partition table or file system: %w", lun, err)
	}
	if what != "" {
		return fmt.Errorf("%s carries a %s signature: refusing to write to it (its data would be destroyed); "+
			"wipe it (wipefs -a) or run with --force if it really is a scratch target", lun, what)
	}
	return nil
}

// approxBytes writes a byte count for people, exactly too:
// "76.0 GiB (81604378624 bytes)".
func approxBytes(n int64) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%s (%d bytes)", report.BinaryBytes(n), n)
}
