package blockio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"

	"vmbench/vdbench/parmfile"
)

// OpenTarget opens sd's lun: a block device or a regular file.
//
// O_DIRECT is used unless openflags= says otherwise (see parseOpenFlags).
// A file system that refuses O_DIRECT (tmpfs before Linux 6.6, some FUSE
// file systems) is reported by name, with the suggestion of
// openflags=none; vmbench never falls back to buffered I/O silently.
//
// A block device is opened with O_EXCL, so the kernel refuses it while it
// is mounted or held (md, LVM, swap). Before a run that writes (o.Write)
// the device is also checked against /proc/self/mountinfo, /proc/swaps and
// its holders, for itself and each of its partitions, and for a partition
// table or file-system signature (see Signature) unless o.Force.
//
// A regular file that is missing or smaller than size= is created or
// extended and preformatted: written once in full. Before anything is
// created, the growth is checked against the space statfs reports
// available on its file system (CheckSpace does the same for every sd of
// a set of runs together); the preformat stops between transfers when
// o.Context is done and prints progress lines for long fills to
// o.Progress; a file system that fills up anyway is reported as "file
// system full" with what was free and what size= needs. On any failure a
// file this call created is removed (it is created with O_EXCL, so never
// one that was there before) and a file it extended is cut back to its
// size. A file that already
// exists is checked before it is written to (by the run or by the
// preformat): it is refused when it carries a signature, unless o.Force (a
// file can hold a file-system image as valuable as a device), and when
// vmbench did not make it, unless o.OverwriteFiles (see fileOwner). A
// preformatted file starts with vmbench's label (ownLabel), then zeros to
// 128 KiB, so a file vmbench made never looks like a file system.
func OpenTarget(sd parmfile.SD, o TargetOptions) (*Target, error) {
	if sd.Lun == "" {
		return nil, fmt.Errorf("sd=%s: no lun=", sd.Name)
	}
	flags, err := parseOpenFlags(sd.OpenFlags, unix.O_DSYNC, unix.O_SYNC)
	if err != nil {
		return nil, fmt.Errorf("sd=%s: %w", sd.Name, err)
	}
	t, err := openTarget(sd, flags, o)
	if err != nil {
		return nil, fmt.Errorf("sd=%s: %w", sd.Name, err)
	}
	return t, nil
}

func openTarget(sd parmfile.SD, flags openFlags, o TargetOptions) (*Target, error) {
	mode := unix.O_RDONLY
	st, statErr := os.Stat(sd.Lun)
	switch {
	case statErr == nil && st.Mode()&fs.ModeDevice != 0 && st.Mode()&fs.ModeCharDevice == 0:
		return openDevice(sd, flags, o)
	case statErr == nil && !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is neither a block device nor a regular file (%s)", sd.Lun, st.Mode().Type())
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return nil, statErr
	case statErr != nil && sd.Size <= 0:
		return nil, fmt.Errorf("%s does not exist, and without size= it cannot be created", sd.Lun)
	}
	existing := int64(0)
	if statErr == nil {
		existing = st.Size()
	}
	grow := sd.Size > existing
	// created: this run makes the file (O_EXCL: never one that appeared
	// meanwhile), and removes it again on any failure.
	created := statErr != nil
	if o.Write || grow {
		mode = unix.O_RDWR
	}
	if created {
		mode |= unix.O_CREAT | unix.O_EXCL
	}
	t := &Target{Lun: sd.Lun, Direct: flags.direct, fsync: flags.fsync}
	t.FileSystem = fsName(filepath.Dir(sd.Lun))
	var avail int64
	if grow {
		var err error
		if avail, err = checkFits(sd, existing, created, t.FileSystem); err != nil {
			return nil, err
		}
	}
	if err := t.open(mode|flags.sys, flags.direct); err != nil {
		if created && !errors.Is(err, fs.ErrExist) {
			os.Remove(sd.Lun) // open(2) may create the file before refusing O_DIRECT
		}
		return nil, err
	}
	ok := false
	defer func() {
		if ok {
			return
		}
		t.f.Close()
		switch {
		case created:
			os.Remove(sd.Lun)
		case grow:
			// back to its size; its data before that stays. Best effort:
			// the failure that got here is the error returned.
			_ = os.Truncate(sd.Lun, existing)
		}
	}()
	if err := t.setUp(sd, flags, o, existing, grow, avail); err != nil {
		return nil, err
	}
	ok = true
	return t, nil
}

// setUp finishes opening t, the file of sd, of existing bytes: its block
// size, the signature check before a write or growth, the preformat up to
// size= when grow (avail bytes being free there), its size (at most size=)
// and, with openflags=clear_cache, dropping its cached pages.
func (t *Target) setUp(sd parmfile.SD, flags openFlags, o TargetOptions, existing int64, grow bool, avail int64) error {
	t.Block = fileBlockSize(t.fd, flags.direct)
	t.MemoryFS = onMemoryFS(t.fd)
	if existing > 0 && (o.Write || grow) {
		if err := t.checkFile(o, existing); err != nil {
			return err
		}
	}
	if grow {
		ctx := o.Context
		if ctx == nil {
			ctx = context.Background()
		}
		if err := t.preformat(ctx, sd, existing, sd.Size, avail, o); err != nil {
			return err
		}
		existing = sd.Size
	}
	t.Size = existing
	if sd.Size > 0 {
		t.Size = min(t.Size, sd.Size)
	}
	if flags.clearCache {
		_ = unix.Fadvise(t.fd, 0, 0, unix.FADV_DONTNEED)
	}
	return nil
}

// checkFits returns the space available on the file system of sd.Lun
// (named fileSystem), in bytes, and an error when growing the file from
// existing bytes to size= needs more than that. created says the file does
// not exist yet (its directory's file system is asked).
func checkFits(sd parmfile.SD, existing int64, created bool, fileSystem string) (avail int64, err error) {
	where := sd.Lun
	if created {
		where = filepath.Dir(sd.Lun)
	}
	space, err := statSpace(where)
	if err != nil {
		return 0, fmt.Errorf("free space of the file system of %s: %w", where, err)
	}
	if avail = space.Avail; sd.Size-existing > avail {
		return 0, fmt.Errorf("size=%s%s does not fit: %s needs %s more on %s (%s), which has %s available; nothing was created",
			parmfile.FormatSize(sd.Size), sizeLine(sd), sd.Lun, approxBytes(sd.Size-existing), filepath.Dir(sd.Lun), fileSystem, approxBytes(avail))
	}
	return avail, nil
}

// open opens t.Lun with mode, adding O_DIRECT when direct, and explains
// a file system's refusal of O_DIRECT.
func (t *Target) open(mode int, direct bool) error {
	if direct {
		mode |= unix.O_DIRECT
	}
	f, err := os.OpenFile(t.Lun, mode|unix.O_CLOEXEC, 0o644)
	if err != nil {
		if direct && errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("%s is on a %s file system, which refuses O_DIRECT (%w); "+
				"put the file on a file system that supports it (ext4, xfs, btrfs; tmpfs since Linux 6.6), "+
				"or set openflags=none on the sd for buffered I/O, which measures the page cache, not the device",
				t.Lun, t.FileSystem, err)
		}
		return err
	}
	t.f, t.fd = f, int(f.Fd())
	return nil
}

// fileBlockSize is the alignment O_DIRECT needs on the file open as fd:
// the kernel's DIOALIGN offset alignment when it reports one, else the
// file system's block size clamped to [512, 4096]. Buffered I/O: 512.
func fileBlockSize(fd int, direct bool) int64 {
	if !direct {
		return 512
	}
	var sx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_DIOALIGN, &sx); err == nil &&
		sx.Mask&unix.STATX_DIOALIGN != 0 && sx.Dio_offset_align >= 512 {
		return int64(sx.Dio_offset_align)
	}
	var sf unix.Statfs_t
	if err := unix.Fstatfs(fd, &sf); err == nil {
		return min(max(int64(sf.Bsize), 512), 4096)
	}
	return 4096
}

// openDevice opens a block device exclusively, after the safety checks.
func openDevice(sd parmfile.SD, flags openFlags, o TargetOptions) (*Target, error) {
	t := &Target{Lun: sd.Lun, Device: true, Direct: flags.direct, fsync: flags.fsync}
	name, err := deviceName(sd.Lun)
	if err != nil {
		return nil, err
	}
	t.FileSystem = name
	if o.Write {
		if err := realHost.checkDeviceFree(sd.Lun, name); err != nil {
			return nil, err
		}
	}
	mode := unix.O_RDONLY
	if o.Write {
		mode = unix.O_RDWR
	}
	if err := t.open(mode|unix.O_EXCL|flags.sys, flags.direct); err != nil {
		if errors.Is(err, unix.EBUSY) {
			return nil, fmt.Errorf("%s (%s) is in use: mounted, or held by md, LVM, swap or another program (exclusive open: %w)", sd.Lun, name, err)
		}
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			t.f.Close()
		}
	}()
	bs, err := unix.IoctlGetInt(t.fd, unix.BLKSSZGET)
	if err != nil {
		return nil, fmt.Errorf("%s: logical block size (BLKSSZGET): %w", sd.Lun, err)
	}
	size, err := ioctlUint64(t.fd, unix.BLKGETSIZE64)
	if err != nil {
		return nil, fmt.Errorf("%s: size (BLKGETSIZE64): %w", sd.Lun, err)
	}
	t.Block, t.Size = int64(bs), int64(size)
	if sd.Size > 0 {
		if sd.Size > t.Size {
			return nil, fmt.Errorf("size=%d is larger than %s (%d bytes)", sd.Size, sd.Lun, t.Size)
		}
		t.Size = sd.Size
	}
	if o.Write {
		if err := t.checkSignature(o.Force); err != nil {
			return nil, err
		}
	}
	ok = true
	return t, nil
}

// readHead reads the first sigBytes of the target into an aligned
// buffer (as O_DIRECT needs), which free releases.
func (t *Target) readHead() (head []byte, free func(), err error) {
	buf, err := alignedBuffer(int((sigBytes + 4095) / 4096 * 4096))
	if err != nil {
		return nil, nil, err
	}
	n, err := unix.Pread(t.fd, buf, 0)
	if err != nil {
		freeBuffer(buf)
		return nil, nil, fmt.Errorf("%s: reading its first blocks to look for a partition table or file system: %w", t.Lun, err)
	}
	return buf[:n], func() { freeBuffer(buf) }, nil
}

// checkSignature refuses the target when it carries a signature, unless
// force.
func (t *Target) checkSignature(force bool) error {
	if force {
		return nil
	}
	head, free, err := t.readHead()
	if err != nil {
		return err
	}
	defer free()
	return refuseSignature(t.Lun, bytes.NewReader(head))
}

// checkFile runs checkExisting on the target, an existing file of size
// bytes, before vmbench writes to it or extends it.
func (t *Target) checkFile(o TargetOptions, size int64) error {
	head, free, err := t.readHead()
	if err != nil {
		return err
	}
	defer free()
	return checkExisting(t.Lun, head, size, t.Block, o,
		func(p []byte, off int64) (int, error) { return unix.Pread(t.fd, p, off) },
		func(p []byte, off int64) (int, error) { return unix.Pwrite(t.fd, p, off) })
}

// ioctlUint64 runs an ioctl that writes a uint64 (BLKGETSIZE64).
func ioctlUint64(fd int, req uint) (uint64, error) {
	var v uint64
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(unsafe.Pointer(&v))); e != 0 {
		return 0, e
	}
	return v, nil
}

// fsTypes names the file systems whose magic Statfs reports, for messages.
var fsTypes = map[int64]string{
	0xEF53: "ext2/3/4", 0x58465342: "xfs", 0x9123683E: "btrfs", 0x01021994: "tmpfs", 0x794c7630: "overlay",
	0x65735546: "FUSE", 0x6969: "NFS", 0x2fc12fc1: "ZFS", 0x01021997: "9p (v9fs)", 0xFF534D42: "CIFS/SMB",
	0xF2F52010: "f2fs", 0x4d44: "FAT", 0x5346544e: "NTFS", 0x858458f6: "ramfs", 0x6a656a63: "virtiofs",
}

// Statfs f_type magics of the file systems that keep files in memory
// (linux/magic.h).
const (
	tmpfsMagic = 0x01021994
	ramfsMagic = 0x858458f6
)

// onMemoryFS reports whether the file open as fd is on tmpfs or ramfs.
func onMemoryFS(fd int) bool {
	var sf unix.Statfs_t
	if err := unix.Fstatfs(fd, &sf); err != nil {
		return false
	}
	return int64(sf.Type) == tmpfsMagic || int64(sf.Type) == ramfsMagic
}

// fsName names the file system holding dir ("file system type 0x..." when
// unknown).
func fsName(dir string) string {
	var sf unix.Statfs_t
	if err := unix.Statfs(dir, &sf); err != nil {
		return "unknown"
	}
	if n, ok := fsTypes[int64(sf.Type)]; ok {
		return n
	}
	return fmt.Sprintf("type %#x", sf.Type)
}
