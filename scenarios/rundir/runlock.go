package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"vmbench/internal/boundedread"
)

// LockFile is the file of a results directory that a running campaign
// holds an exclusive lock on (flock where the system has it), with its
// process id in it, from its start until it ends. teardown.Run refuses a
// directory whose lock is held.
const LockFile = ".lock"

// ErrRunning is what teardown.Run's error wraps when the campaign of the
// directory is still running.
var ErrRunning = errors.New("still running")

// RunLock is a held LockFile.
type RunLock struct{ f *os.File }

// Lock takes dir's LockFile without waiting and writes this process's
// id into it. When another process (or another Lock in this one)
// holds it, the error wraps ErrRunning and names that process's id.
func Lock(dir string) (*RunLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if held {
		pid := LockPid(path)
		f.Close()
		return nil, fmt.Errorf("campaign %s is %w (pid %s): it holds %s; stop it (Ctrl-C) first, it tears down what it created as it ends", dir, ErrRunning, pid, path)
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &RunLock{f: f}, nil
}

// maxLockFileSize bounds the LockFile as lockPid and Running read it:
// it holds a process id and a newline.
const maxLockFileSize = 4 << 10

// LockPid returns the process id written in the LockFile at path, or
// "unknown" when it cannot be read (also when it is not a regular file
// of at most maxLockFileSize bytes).
func LockPid(path string) string {
	b, _ := boundedread.ReadFile(path, maxLockFileSize)
	pid := strings.TrimSpace(string(b))
	if _, err := strconv.Atoi(pid); err != nil {
		return "unknown"
	}
	return pid
}

// Release lets the lock go (closing the file releases it).
func (l *RunLock) Release() { l.f.Close() }

// Running says whether a campaign holds results directory dir's
// LockFile now, and its process id, without writing anything in dir (a
// report only reads). Where the system has no file locks it says no; so
// it does for a LockFile that is not a regular file of at most
// maxLockFileSize bytes (boundedread.Open: opening a FIFO would block),
// which no campaign made.
func Running(dir string) (pid string, ok bool) {
	path := filepath.Join(dir, LockFile)
	f, err := boundedread.Open(path, maxLockFileSize)
	if err != nil {
		return "", false
	}
	defer f.Close() // releases the lock if tryLock took it
	held, err := tryLock(f)
	if err != nil || !held {
		return "", false
	}
	return LockPid(path), true
}

// Holder reports whether a process holds dir's LockFile and, if so,
// the pid written in it ("unknown" when unreadable). A missing LockFile is
// not held; the file is neither made nor written.
func Holder(dir string) (pid string, held bool, err error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR, 0) // flock on NFS needs it open for writing
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close() // lets go of the lock if it was ours to take
	if held, err = tryLock(f); err != nil || !held {
		return "", false, err
	}
	return LockPid(path), true, nil
}
