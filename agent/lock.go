package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"vmbench/internal/boundedread"
)

// ErrLocked is matched (errors.Is) by Run's error when another agent holds
// the run directory's LockFile: the message names the lock file and the
// pid holding it, and Run wrote nothing. `vmbench agent run` exits 2.
var ErrLocked = errors.New("run directory is locked by another agent")

// lockInfo is LockFile's content: who holds the directory.
type lockInfo struct {
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

// dirLock is a LockFile this agent created.
type dirLock struct {
	path    string
	content []byte
	// tookOver, when set, says whose stale lock was replaced (for log.txt).
	tookOver string
}

// lockDir creates dir's LockFile exclusively (O_CREATE|O_EXCL) with this
// process's pid and start time. A lock whose pid is no longer running is
// stale: it is removed and taken again, and the returned lock says so. A
// lock of a live process is ErrLocked. (A pid reused since the holder
// died looks alive: the lock is then refused, never stolen.)
func lockDir(dir string, now time.Time) (*dirLock, error) {
	path := filepath.Join(dir, LockFile)
	content, err := json.Marshal(lockInfo{PID: os.Getpid(), Started: now})
	if err != nil {
		return nil, err
	}
	l := &dirLock{path: path, content: append(content, '\n')}
	for attempt := 0; ; attempt++ {
		err := l.create()
		if !errors.Is(err, fs.ErrExist) {
			return l, err
		}
		held, err := boundedread.ReadFile(path, MaxStatusSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue // released between our create and read: try again
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var info lockInfo
		if json.Unmarshal(held, &info) != nil || info.PID <= 0 {
			return nil, fmt.Errorf("%w: %s exists and is not an agent's lock (%q); remove it if no agent runs there",
				ErrLocked, path, bytes.TrimSpace(held))
		}
		if processAlive(info.PID) || attempt > 0 {
			return nil, fmt.Errorf("%w: %s is held by pid %d (started %s)",
				ErrLocked, path, info.PID, info.Started.Format(time.RFC3339))
		}
		// Stale: remove it only if it is still the lock just read.
		if again, err := boundedread.ReadFile(path, MaxStatusSize); err == nil && bytes.Equal(again, held) {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("removing the stale %s: %w", path, err)
			}
		}
		l.tookOver = fmt.Sprintf("agent: took over the stale lock %s of pid %d (started %s), which is no longer running",
			LockFile, info.PID, info.Started.Format(time.RFC3339))
	}
}

// create writes the lock file if none exists.
func (l *dirLock) create() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return fmt.Errorf("creating %s: %w", l.path, err)
	}
	_, err = f.Write(l.content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(l.path)
		return fmt.Errorf("writing %s: %w", l.path, err)
	}
	return nil
}

// unlock removes the lock file if it is still this agent's.
func (l *dirLock) unlock() error {
	if b, err := os.ReadFile(l.path); err != nil || !bytes.Equal(b, l.content) {
		return nil // gone, or taken over: not ours to remove
	}
	if err := os.Remove(l.path); err != nil {
		return fmt.Errorf("removing %s: %w", l.path, err)
	}
	return nil
}
