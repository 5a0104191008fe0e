package guest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"vmbench/internal/boundedread"
	"vmbench/target"
)

// cleanupTimeout bounds the removal of a temporary file after a failure,
// which runs even when the caller's ctx has ended.
const cleanupTimeout = 30 * time.Second

// Info reports the guest's OS and architecture (read from the VM's guest
// identity by New), the working directory, and the guest clock's offset.
//
// Guest operations cannot ask the guest for its time without starting a
// program, so Info uploads a small probe file into the working directory
// and reads back its modification time, which VMware Tools sets from the
// guest's clock when it writes the file. The write happens between the
// start of the transfer (t0, on the caller's clock) and its reply (t1):
// ClockOffset is the modification time minus the midpoint of t0 and t1,
// and ClockUncertainty is half of t1 - t0 (the transfer includes the
// InitiateFileTransferToGuest call and the HTTP PUT through the ESXi
// host, so expect tens to hundreds of milliseconds). A guest that reports
// whole seconds only (a modification time with no fraction) moves the
// estimate to the middle of that second and adds half a second to the
// uncertainty. A file system that stamps times from a coarse clock (a
// kernel tick) can put the true offset a few milliseconds outside the
// interval. The probe is removed afterwards.
func (t *Target) Info(ctx context.Context) (target.Info, error) {
	info := target.Info{OS: t.os, Arch: t.arch, Dir: t.dir}
	probe := t.join(t.dir, ".vmbench-clock-"+randomHex(6))
	data := "vmbench clock probe\n"
	t0 := t.now()
	err := t.ops.Upload(ctx, probe, strings.NewReader(data), int64(len(data)), 0o600)
	t1 := t.now()
	if err != nil {
		t.remove(ctx, probe)
		return info, fmt.Errorf("%s: clock probe: upload %s: %w", t.name, probe, err)
	}
	defer t.remove(ctx, probe)
	mt, err := t.ops.ModTime(ctx, probe)
	if err != nil {
		return info, fmt.Errorf("%s: clock probe: %w", t.name, err)
	}
	info.ClockOffset, info.ClockUncertainty = clockOffset(t0, t1, mt)
	return info, nil
}

// clockOffset returns the guest time guest against the midpoint of the
// caller's t0 and t1, and the uncertainty of that offset (see Info).
func clockOffset(t0, t1, guest time.Time) (offset, uncertainty time.Duration) {
	rtt := t1.Sub(t0)
	mid := t0.Add(rtt / 2)
	uncertainty = rtt - rtt/2
	if guest.Nanosecond() == 0 {
		guest = guest.Add(500 * time.Millisecond)
		uncertainty += 500 * time.Millisecond
	}
	return guest.Sub(mid), uncertainty
}

// Upload copies the local file to the remote path (parents created, mode's
// permission bits applied on Linux; Windows ignores mode). The file goes
// to a temporary name beside the destination, is downloaded back and its
// SHA-256 compared with the local file's, and only then renamed into
// place: a mismatch returns an error wrapping target.ErrChecksum and
// removes the temporary file. Verifying costs a second transfer of the
// file, since guest operations have no checksum command.
func (t *Target) Upload(ctx context.Context, local, remote string, mode uint32) error {
	if err := t.checkFile("Upload: remote path", remote); err != nil {
		return err
	}
	f, err := os.Open(local)
	if err != nil {
		return fmt.Errorf("%s: upload: %w", t.name, err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: upload: %w", t.name, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: upload: %s is not a regular file", t.name, local)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("%s: upload: read %s: %w", t.name, local, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: upload: %w", t.name, err)
	}
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return t.put(ctx, local, remote, io.LimitReader(f, st.Size()), st.Size(), sum, mode)
}

// WriteFile writes data to the remote path as Upload does, for small
// files made in memory.
func (t *Target) WriteFile(ctx context.Context, remote string, data []byte, mode uint32) error {
	if err := t.checkFile("WriteFile: remote path", remote); err != nil {
		return err
	}
	return t.put(ctx, "(data)", remote, bytes.NewReader(data), int64(len(data)), sha256.Sum256(data), mode)
}

// put uploads to a temporary name, verifies the digest and renames.
func (t *Target) put(ctx context.Context, from, remote string, r io.Reader, size int64, want [sha256.Size]byte, mode uint32) error {
	dir, base := t.guestParent(remote)
	fail := func(step string, err error) error {
		return fmt.Errorf("%s: upload %s to %s: %s: %w", t.name, from, remote, step, err)
	}
	if dir != t.dir {
		if err := t.ops.MakeDirectory(ctx, dir, true); err != nil && !isExist(err) {
			return fail("make directory "+dir, err)
		}
	}
	tmp := t.join(dir, ".vmbench-upload-"+randomHex(6)+"-"+base)
	if err := t.ops.Upload(ctx, tmp, r, size, mode); err != nil {
		t.remove(ctx, tmp)
		return fail("transfer", err)
	}
	got, err := t.digest(ctx, tmp)
	if err != nil {
		t.remove(ctx, tmp)
		return fail("read back", err)
	}
	if got != want {
		t.remove(ctx, tmp)
		return fail("verify", fmt.Errorf("arrived with SHA-256 %x, sent %x: %w", got, want, target.ErrChecksum))
	}
	if err := t.ops.MoveFile(ctx, tmp, t.guestPath(remote)); err != nil {
		t.remove(ctx, tmp)
		return fail("rename into place", err)
	}
	return nil
}

// digest downloads the guest file p and returns its SHA-256.
func (t *Target) digest(ctx context.Context, p string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	rc, err := t.ops.Download(ctx, p)
	if err != nil {
		return sum, err
	}
	defer func() { _ = rc.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, rc); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// ReadFile returns the remote file's content; a missing file is an error
// wrapping fs.ErrNotExist.
func (t *Target) ReadFile(ctx context.Context, remote string) ([]byte, error) {
	return t.read(ctx, "ReadFile", remote, io.ReadAll)
}

// ReadFileMax is ReadFile of a file of at most limit bytes, as
// Target.ReadFileMax says: the download is read up to limit+1 bytes
// (boundedread.ReadAll). Guest operations do not say what kind of file
// they send (VMware Tools' file transfer reads it as a file), so the
// bound is what stops one without end.
func (t *Target) ReadFileMax(ctx context.Context, remote string, limit int64) ([]byte, error) {
	return t.read(ctx, "ReadFileMax", remote, func(r io.Reader) ([]byte, error) {
		return boundedread.ReadAll(r, t.guestPath(remote), limit)
	})
}

// read downloads remote and reads it with readAll; method names the
// caller in errors about the path.
func (t *Target) read(ctx context.Context, method, remote string, readAll func(io.Reader) ([]byte, error)) ([]byte, error) {
	if err := t.checkFile(method+": remote path", remote); err != nil {
		return nil, err
	}
	rc, err := t.ops.Download(ctx, t.guestPath(remote))
	if err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", t.name, remote, err)
	}
	defer func() { _ = rc.Close() }()
	b, err := readAll(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", t.name, remote, err)
	}
	return b, nil
}

// RemoveAll removes the remote path and everything below it; a missing
// path is not an error, and "." removes the working directory itself.
// It tries the path as a file first and, when the guest says it is not
// one, as a directory (guest operations have no "stat and remove").
func (t *Target) RemoveAll(ctx context.Context, remote string) error {
	if err := t.checkRemote("RemoveAll: remote path", remote); err != nil {
		return err
	}
	p := t.guestPath(remote)
	if remote != "." {
		ferr := t.ops.DeleteFile(ctx, p)
		if ferr == nil || errors.Is(ferr, fs.ErrNotExist) {
			return nil
		}
		derr := t.ops.DeleteDirectory(ctx, p)
		switch {
		case derr == nil, errors.Is(derr, fs.ErrNotExist):
			return nil
		case errors.Is(ferr, errNotAFile):
			return fmt.Errorf("%s: remove directory %s: %w", t.name, remote, derr)
		}
		return fmt.Errorf("%s: remove %s: %w", t.name, remote, ferr)
	}
	if err := t.ops.DeleteDirectory(ctx, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: remove working directory %s: %w", t.name, p, err)
	}
	return nil
}

// checkFile is checkRemote for paths that must name a file, not ".".
func (t *Target) checkFile(what, p string) error {
	if err := t.checkRemote(what, p); err != nil {
		return err
	}
	if p == "." {
		return fmt.Errorf("%s %q: names the working directory, not a file: %w", what, p, target.ErrBadPath)
	}
	return nil
}

// remove deletes the guest file p, best effort, even after ctx ended.
func (t *Target) remove(ctx context.Context, p string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	_ = t.ops.DeleteFile(ctx, p)
}

// join appends a file name to a guest directory in the guest's spelling.
func (t *Target) join(dir, name string) string {
	if t.os == "windows" {
		return strings.TrimSuffix(dir, `\`) + `\` + name
	}
	return path.Join(dir, name)
}

func isExist(err error) bool { return errors.Is(err, fs.ErrExist) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
