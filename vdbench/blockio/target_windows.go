//go:build windows

package blockio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/windows"

	"vmbench/vdbench/parmfile"
)

// directBlock is the logical block size a Windows target reports with
// direct I/O: FILE_FLAG_NO_BUFFERING needs offsets, lengths and buffer
// addresses that are multiples of the volume's sector size, and 4096 is a
// multiple of both 512-byte and 4096-byte sectors. Buffered I/O reports
// 512, as on Linux.
const directBlock = 4096

// OpenTarget opens sd's lun on Windows: an existing regular file, at least
// size= long.
//
// Direct I/O (openflags=o_direct or directio, vmbench's default) opens the
// file with FILE_FLAG_NO_BUFFERING, and the target's block size is then
// 4096 (see directBlock); openflags=o_dsync, o_sync and o_rsync open it
// with FILE_FLAG_WRITE_THROUGH; openflags=fsync flushes it
// (FlushFileBuffers) on Close; openflags=clear_cache is refused without
// direct I/O (Windows has no call that drops one file's cached pages) and
// does nothing with it (nothing is cached).
//
// Not implemented on Windows, each refused with an error that says so:
// raw disks and volumes (\\.\PhysicalDriveN, \\.\C:), and creating or
// extending a file (Linux preformats a missing or short file). Before a
// run that writes (o.Write) an existing file is checked as on Linux: a
// partition table or file-system signature is refused unless o.Force, a
// file vmbench did not make unless o.OverwriteFiles. FileSystem
// is the volume's file system name (NTFS, ReFS...) when Windows reports
// it; MemoryFS is never set.
func OpenTarget(sd parmfile.SD, o TargetOptions) (*Target, error) {
	if sd.Lun == "" {
		return nil, fmt.Errorf("sd=%s: no lun=", sd.Name)
	}
	flags, err := parseOpenFlags(sd.OpenFlags, os.O_SYNC, os.O_SYNC)
	if err != nil {
		return nil, fmt.Errorf("sd=%s: %w", sd.Name, err)
	}
	t, err := openWindowsFile(sd, flags, o)
	if err != nil {
		return nil, fmt.Errorf("sd=%s: %w", sd.Name, err)
	}
	return t, nil
}

func openWindowsFile(sd parmfile.SD, flags openFlags, o TargetOptions) (*Target, error) {
	if strings.HasPrefix(sd.Lun, `\\.\`) || strings.HasPrefix(sd.Lun, `\\?\GLOBALROOT`) {
		return nil, fmt.Errorf("lun=%s: raw disks and volumes are not supported on Windows yet (valid: a regular file on an NTFS or ReFS volume)", sd.Lun)
	}
	if flags.clearCache && !flags.direct {
		return nil, fmt.Errorf("openflags=clear_cache is not supported on Windows without direct I/O (valid: add o_direct, which bypasses the cache)")
	}
	st, err := os.Stat(sd.Lun)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist: vmbench does not create or preformat files on Windows yet; "+
			"create it (fsutil file createnew %s BYTES) and fill it with a sequential write run first, with --overwrite-files "+
			"(a file vmbench did not make is otherwise refused)", sd.Lun, sd.Lun)
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s): on Windows only file luns are supported", sd.Lun, st.Mode().Type())
	case sd.Size > st.Size():
		return nil, fmt.Errorf("%s is %d bytes, smaller than size=%s%s: vmbench does not extend files on Windows yet (valid: size= at most %d)",
			sd.Lun, st.Size(), parmfile.FormatSize(sd.Size), sizeLine(sd), st.Size())
	}
	mode := os.O_RDONLY
	if o.Write {
		mode = os.O_RDWR
	}
	mode |= flags.sys
	t := &Target{Lun: sd.Lun, Direct: flags.direct, fsync: flags.fsync, Block: 512}
	if flags.direct {
		mode |= windows.O_FILE_FLAG_NO_BUFFERING
		t.Block = directBlock
	}
	open := func() (*os.File, error) { return os.OpenFile(sd.Lun, mode, 0) }
	f, err := open()
	if err != nil {
		return nil, err
	}
	t.f = f
	t.pool = newHandlePool(sd.Lun, f, open)
	t.FileSystem = volumeFileSystem(sd.Lun)
	t.Size = st.Size()
	if sd.Size > 0 {
		t.Size = min(t.Size, sd.Size)
	}
	if o.Write && st.Size() > 0 {
		if err := t.checkFile(o, st.Size()); err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

// checkFile reads the first sigBytes of the file (with an aligned buffer
// and length, as FILE_FLAG_NO_BUFFERING needs) and runs checkExisting on
// it: a signature, a file vmbench did not make.
func (t *Target) checkFile(o TargetOptions, size int64) error {
	buf, err := alignedBuffer(int((sigBytes + directBlock - 1) / directBlock * directBlock))
	if err != nil {
		return err
	}
	n, err := t.f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: reading its first blocks to look for a partition table or file system: %w", t.Lun, err)
	}
	return checkExisting(t.Lun, buf[:n], size, t.Block, o, t.f.ReadAt, t.f.WriteAt)
}

// volumeFileSystem names the file system of the volume holding path
// ("NTFS", "ReFS"...), or "" when Windows does not say.
func volumeFileSystem(path string) string {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return ""
	}
	root := make([]uint16, windows.MAX_PATH+1)
	if windows.GetVolumePathName(p, &root[0], uint32(len(root))) != nil {
		return ""
	}
	name := make([]uint16, windows.MAX_PATH+1)
	if windows.GetVolumeInformation(&root[0], nil, 0, nil, nil, nil, &name[0], uint32(len(name))) != nil {
		return ""
	}
	return windows.UTF16ToString(name)
}

// CheckSpace has nothing to check on Windows: OpenTarget creates and
// extends no file there, it refuses a missing or short one.
func CheckSpace(runs []parmfile.Run) error { return nil }

// CreateFiles creates nothing on Windows (see OpenTarget, which refuses a
// missing or short file with what to do instead).
func CreateFiles(ctx context.Context, runs []parmfile.Run, o TargetOptions) ([]string, error) {
	return nil, nil
}

// RemoveCreated does nothing on Windows: CreateFiles creates nothing.
func RemoveCreated(files []string) {}
