package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"vmbench/internal/boundedread"
)

// This file stops an agent left running in a run directory: one whose
// campaign was killed with the harness, found again by a resumed
// campaign before it reuses the directory (the agent would otherwise
// write into the new run's files).

// Stopped says what Stop found in a run directory.
type Stopped struct {
	// PID is the agent's process id, 0 when no agent held the directory
	// (no LockFile, or one whose process no longer runs).
	PID int
	// Killed says it had to be killed: it did not end within the grace
	// after the request to stop (SIGTERM; on Windows it is killed at once).
	Killed bool
}

// stopPoll is how often Stop looks whether the agent has ended.
const stopPoll = 50 * time.Millisecond

// Stop ends the agent that holds dir's LockFile. It asks it to stop
// (SIGTERM: the agent writes its partial result and exits 130), waits up
// to grace for the process to end, and kills it past that. A LockFile
// that is not an agent's is an error; no LockFile, or one whose process
// no longer runs, is Stopped{} (a stale lock is taken over by the next
// agent). A pid reused since the agent died by another program is left
// alone where the OS can tell (Linux: its command line is not an
// agent's).
func Stop(ctx context.Context, dir string, grace time.Duration) (Stopped, error) {
	path := filepath.Join(dir, LockFile)
	b, err := boundedread.ReadFile(path, MaxStatusSize) // a FIFO or /dev/zero planted there is refused
	if errors.Is(err, fs.ErrNotExist) {
		return Stopped{}, nil
	}
	if err != nil {
		return Stopped{}, err
	}
	var info lockInfo
	if json.Unmarshal(b, &info) != nil || info.PID <= 0 {
		return Stopped{}, fmt.Errorf("%s is not an agent's lock (%q): not stopping anything", path, b)
	}
	if !processAlive(info.PID) || !isAgent(info.PID) {
		return Stopped{}, nil
	}
	p, err := os.FindProcess(info.PID)
	if err != nil {
		return Stopped{}, err
	}
	out := Stopped{PID: info.PID}
	if err := terminate(p); err != nil {
		out.Killed = true
		return out, p.Kill()
	}
	deadline := time.Now().Add(grace)
	for processAlive(info.PID) {
		if time.Now().After(deadline) {
			out.Killed = true
			if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				return out, err
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-time.After(stopPoll):
		}
	}
	return out, nil
}
