package blockio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"vmbench/report"
	"vmbench/vdbench/parmfile"
)

// fsSpace is what statfs(2) says of the file system holding a path.
type fsSpace struct {
	// Avail is the space unprivileged writers may use, in bytes
	// (f_bavail × f_frsize): vmbench never fills the blocks reserved for
	// root.
	Avail int64
	// ID tells file systems apart (f_fsid).
	ID [2]int32
}

// statSpace reads the space of the file system holding path. Tests
// replace it to make a file system look larger than it is, so that a fill
// reaches a real ENOSPC.
var statSpace = func(path string) (fsSpace, error) {
	var sf unix.Statfs_t
	if err := unix.Statfs(path, &sf); err != nil {
		return fsSpace{}, err
	}
	bs := int64(sf.Frsize)
	if bs == 0 {
		bs = int64(sf.Bsize)
	}
	return fsSpace{Avail: int64(sf.Bavail) * bs, ID: [2]int32(sf.Fsid.Val)}, nil
}

// growth is how much a regular-file lun grows when sd is opened: the
// bytes OpenTarget writes to extend it to size= (0 for a device, or for a
// file already at least that large), and where its file system is (the
// file, or its directory when it does not exist yet).
func growth(sd parmfile.SD) (need int64, where string, err error) {
	st, err := os.Stat(sd.Lun)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return max(sd.Size, 0), filepath.Dir(sd.Lun), nil
	case err != nil:
		return 0, "", err
	case !st.Mode().IsRegular():
		return 0, "", nil
	}
	return max(sd.Size-st.Size(), 0), sd.Lun, nil
}

// CheckSpace refuses the runs when the files their sds create or extend
// (a lun that is a regular file, or does not exist yet, with a size= above
// its current size) do not fit in the space their file systems have:
// statfs's space available to unprivileged writers, summed over the sds
// on each file system. It creates nothing. Each error names the sds, the
// line of their size= in the parameter file, what they need and what is
// free.
func CheckSpace(runs []parmfile.Run) error {
	sds, _ := TargetSDs(runs)
	type fsNeed struct {
		space fsSpace
		where string
		need  int64
		sds   []string
	}
	var order []*fsNeed
	byID := map[[2]int32]*fsNeed{}
	var errs []error
	for _, sd := range sds {
		need, where, err := growth(sd)
		if err != nil {
			errs = append(errs, fmt.Errorf("sd=%s: %w", sd.Name, err))
			continue
		}
		if need == 0 {
			continue
		}
		space, err := statSpace(where)
		if err != nil {
			errs = append(errs, fmt.Errorf("sd=%s: free space of the file system of %s: %w", sd.Name, where, err))
			continue
		}
		f := byID[space.ID]
		if f == nil {
			f = &fsNeed{space: space, where: where}
			byID[space.ID] = f
			order = append(order, f)
		}
		f.need += need
		f.sds = append(f.sds, fmt.Sprintf("sd=%s%s, lun=%s, size=%s", sd.Name, sizeLine(sd), sd.Lun, parmfile.FormatSize(sd.Size)))
	}
	for _, f := range order {
		if f.need > f.space.Avail {
			dir := f.where
			if st, err := os.Stat(dir); err == nil && !st.IsDir() {
				dir = filepath.Dir(dir)
			}
			errs = append(errs, &SpaceError{SDs: strings.Join(f.sds, "; "), Need: f.need, Dir: dir, FS: fsName(dir), Avail: f.space.Avail})
		}
	}
	return errors.Join(errs...)
}

// SpaceError is CheckSpace's refusal of the files of some sds (SDs, as
// the parameter file gives them) that need Need bytes more than the
// Avail bytes the file system of Dir (of type FS) has.
type SpaceError struct {
	SDs     string
	Need    int64
	Dir, FS string
	Avail   int64
}

func (e *SpaceError) Error() string {
	return fmt.Sprintf("%s: size= does not fit: the file(s) need %s more on %s (%s), which has %s available; nothing was created (valid: a smaller size=, or a file system with room)",
		e.SDs, approxBytes(e.Need), e.Dir, e.FS, approxBytes(e.Avail))
}

// ProblemKey is what makes two SpaceErrors the same problem: the sds,
// what they need and where, not the space available, which another
// process's writes change from one check to the next (a suite checks
// each profile's targets, and lists a problem they all share once).
func (e *SpaceError) ProblemKey() string {
	return fmt.Sprintf("space: %s: %d bytes on %s", e.SDs, e.Need, e.Dir)
}

// fillReportBytes is how often preformat reports: every tenth of the fill,
// or every fillReportBytes, whichever comes first, for fills of at least
// fillReportBytes.
var fillReportBytes int64 = 1 << 30

// preformat writes the file from its current size (rounded down to the
// block size) to size, in 1 MiB transfers of the data pattern, each
// scrambled (scrambleWrite) so that none deduplicates against another;
// the first fillStart (128 KiB) of the file are vmbench's label (see
// ownLabel) and zeros. The new part is synced. It checks ctx
// between transfers and stops when it is done. avail is the space the
// file system had before the fill; a write that finds the file system
// full is reported with it ("file system full: N bytes free, size= needs
// M"). The caller removes what the fill leaves on an error.
func (t *Target) preformat(ctx context.Context, sd parmfile.SD, from, size, avail int64, o TargetOptions) error {
	if size%t.Block != 0 {
		return fmt.Errorf("size=%d is not a multiple of the logical block size (%d bytes) of %s", size, t.Block, t.Lun)
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	total := size - from
	fmt.Fprintf(progress, "preformatting %s: writing %s\n", t.Lun, approxBytes(total))
	const chunk, zeroed = fillChunk, fillStart
	buf, err := alignedBuffer(chunk)
	if err != nil {
		return err
	}
	defer freeBuffer(buf)
	fillPattern(buf, 1)
	zeros, err := alignedBuffer(zeroed)
	if err != nil {
		return err
	}
	defer freeBuffer(zeros)
	putLabel(zeros)
	step := min(max(total/10, chunk), fillReportBytes)
	start, next := time.Now(), from+step
	for off := from / t.Block * t.Block; off < size; {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("preformatting %s stopped at %s of %s: %w", t.Lun, approxBytes(off-from), approxBytes(total), err)
		}
		p := buf
		if off < zeroed {
			p = zeros[off:]
		} else {
			scrambleWrite(buf, 1, uint64(off)) // no two transfers alike: nothing to deduplicate
		}
		p = p[:min(int64(len(p)), size-off)]
		n, err := unix.Pwrite(t.fd, p, off)
		if full := errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT) || (err == nil && n < len(p)); full {
			why := "file system full"
			if errors.Is(err, unix.EDQUOT) {
				why = "disk quota exceeded"
			}
			return fmt.Errorf("%s: %d bytes free, size=%s%s needs %d: writing %s at offset %d (free before the fill: %s; needed: %s)",
				why, avail, parmfile.FormatSize(sd.Size), sizeLine(sd), total, t.Lun, off+int64(max(n, 0)), approxBytes(avail), approxBytes(total))
		}
		if err != nil {
			return fmt.Errorf("preformatting %s at offset %d: %w", t.Lun, off, err)
		}
		off += int64(n)
		if total >= fillReportBytes && off >= next && off < size {
			el := time.Since(start).Seconds()
			fmt.Fprintf(progress, "preformatting %s: %d%% (%s of %s, %.0f MiB/s)\n", t.Lun, (off-from)*100/total,
				report.BinaryBytes(off-from), report.BinaryBytes(total), float64(off-from)/float64(report.MiB)/max(el, 1e-3))
			next += step
		}
	}
	t.Created = true
	if err := t.f.Sync(); err != nil {
		return fmt.Errorf("preformatting %s: fsync: %w", t.Lun, err)
	}
	return nil
}

// CreateFiles creates and preformats, before the first run, every file
// lun of the runs that does not exist yet or is smaller than its size=
// (as OpenTarget would when the run opens it), one after the other, with
// ctx stopping a preformat between transfers. It returns the files it
// created, so that a caller whose run then fails before measuring can
// remove them (RemoveCreated); on its own error it removes them itself
// (and OpenTarget has cut back a file it was extending). o's Force,
// OverwriteFiles and Progress are passed on to OpenTarget (the checks of
// a file being extended, the preformat's progress lines).
func CreateFiles(ctx context.Context, runs []parmfile.Run, o TargetOptions) (created []string, err error) {
	sds, _ := TargetSDs(runs)
	for _, sd := range sds {
		need, _, err := growth(sd)
		if err != nil || need == 0 {
			continue // a device, or a file large enough: OpenTarget reports any other problem
		}
		_, statErr := os.Stat(sd.Lun)
		o.Write, o.Context = true, ctx
		t, err := OpenTarget(sd, o)
		if err == nil {
			err = t.Close()
		}
		if err != nil {
			RemoveCreated(created)
			return nil, err
		}
		if errors.Is(statErr, os.ErrNotExist) && t.Created {
			created = append(created, sd.Lun)
		}
	}
	return created, nil
}

// RemoveCreated removes the files CreateFiles created.
func RemoveCreated(files []string) {
	for _, f := range files {
		os.Remove(f)
	}
}
