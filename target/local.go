package target

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"vmbench/internal/boundedread"
)

// Local is a working directory on this host standing in for a VM: its
// programs run here with os/exec. Its methods are safe for concurrent use.
type Local struct {
	name string
	dir  string // absolute, in this host's spelling

	// afterWrite, when set, runs on the written file's path after the
	// rename and before the checksum is verified. Only tests set it (to
	// corrupt the file and see ErrChecksum); nil in every real Local.
	afterWrite func(path string) error

	mu    sync.Mutex
	procs []*localProcess // started, for Shutdown
}

var _ Target = (*Local)(nil)

// NewLocal opens the working directory dir (made with its parents if
// missing; it must be a directory) as a target named name. dir is made
// absolute against the current directory.
func NewLocal(name, dir string) (*Local, error) {
	if name == "" {
		return nil, errors.New("target: NewLocal: empty name")
	}
	if dir == "" {
		return nil, fmt.Errorf("target %s: empty working directory", name)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("target %s: working directory %q: %w", name, dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("target %s: make working directory: %w", name, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("target %s: working directory: %w", name, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("target %s: working directory %s is not a directory", name, abs)
	}
	return &Local{name: name, dir: abs}, nil
}

// Name returns the name given to NewLocal.
func (l *Local) Name() string { return l.name }

// Close does nothing: a Local holds no connection.
func (l *Local) Close() error { return nil }

// Info reports runtime.GOOS and runtime.GOARCH, the working directory, and
// a clock offset of exactly 0 with uncertainty 0: the target's clock is the
// caller's own, so there is nothing to measure.
func (l *Local) Info(ctx context.Context) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	return Info{OS: runtime.GOOS, Arch: runtime.GOARCH, Dir: l.dir}, nil
}

// path validates remote and returns it as a path on this host.
func (l *Local) path(remote string) (string, error) {
	if err := checkPath(remote); err != nil {
		return "", fmt.Errorf("target %s: %w", l.name, err)
	}
	if remote == "." {
		return l.dir, nil
	}
	rel := filepath.FromSlash(remote)
	if !filepath.IsLocal(rel) { // a Windows volume or reserved name
		return "", fmt.Errorf("target %s: remote path %q: %w: not local on %s", l.name, remote, ErrBadPath, runtime.GOOS)
	}
	return filepath.Join(l.dir, rel), nil
}

// Upload copies the local file to remote as Target.Upload says.
func (l *Local) Upload(ctx context.Context, local, remote string, mode uint32) error {
	f, err := os.Open(local)
	if err != nil {
		return fmt.Errorf("target %s: upload: %w", l.name, err)
	}
	defer f.Close()
	return l.write(ctx, f, remote, mode)
}

// WriteFile writes data to remote as Target.WriteFile says.
func (l *Local) WriteFile(ctx context.Context, remote string, data []byte, mode uint32) error {
	return l.write(ctx, bytes.NewReader(data), remote, mode)
}

// write copies r to a temporary file beside remote, applies mode, renames
// it into place, and then reads the file back to check its SHA-256.
func (l *Local) write(ctx context.Context, r io.Reader, remote string, mode uint32) error {
	dst, err := l.path(remote)
	if err != nil {
		return err
	}
	if remote == "." {
		return fmt.Errorf("target %s: write: %w: \".\" is the working directory, not a file", l.name, ErrBadPath)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("target %s: write %s: %w", l.name, remote, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return fmt.Errorf("target %s: write %s: %w", l.name, remote, err)
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), r)
	if err == nil {
		err = tmp.Chmod(fs.FileMode(mode).Perm())
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("target %s: write %s: %w", l.name, remote, err)
	}
	if l.afterWrite != nil {
		if err := l.afterWrite(dst); err != nil {
			return err
		}
	}
	return l.verify(dst, remote, h.Sum(nil))
}

// verify re-reads the file at dst and removes it when its SHA-256 is not
// want.
func (l *Local) verify(dst, remote string, want []byte) error {
	f, err := os.Open(dst)
	if err != nil {
		return fmt.Errorf("target %s: verify %s: %w", l.name, remote, err)
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	_ = f.Close()
	if err != nil {
		return fmt.Errorf("target %s: verify %s: %w", l.name, remote, err)
	}
	if got := h.Sum(nil); !bytes.Equal(got, want) {
		_ = os.Remove(dst)
		return fmt.Errorf("target %s: %s: %w: sent sha256 %x, found %x (file removed)", l.name, remote, ErrChecksum, want, got)
	}
	return nil
}

// ReadFile returns the content of remote; a missing file wraps
// fs.ErrNotExist.
func (l *Local) ReadFile(ctx context.Context, remote string) ([]byte, error) {
	return l.read(ctx, remote, os.ReadFile)
}

// ReadFileMax is ReadFile of a regular file of at most limit bytes
// (boundedread.ReadFile), as Target.ReadFileMax says.
func (l *Local) ReadFileMax(ctx context.Context, remote string, limit int64) ([]byte, error) {
	return l.read(ctx, remote, func(p string) ([]byte, error) { return boundedread.ReadFile(p, limit) })
}

// read returns the content of remote as readFile reads its local path.
func (l *Local) read(ctx context.Context, remote string, readFile func(string) ([]byte, error)) ([]byte, error) {
	p, err := l.path(remote)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := readFile(p)
	if err != nil {
		return nil, fmt.Errorf("target %s: read %s: %w", l.name, remote, err)
	}
	return b, nil
}

// RemoveAll removes remote and everything below it; "." removes the
// working directory itself.
func (l *Local) RemoveAll(ctx context.Context, remote string) error {
	p, err := l.path(remote)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("target %s: remove %s: %w", l.name, remote, err)
	}
	return nil
}

// Start starts cmd in its own process group (on Unix), detached from ctx:
// cancelling ctx after Start returns does not stop it. On Linux it dies
// with the process that started it (SIGKILL when that process ends, kill
// -9 included), as a simulated guest's processes end with the campaign
// that stands for their VM; a child it started in the background does not
// (Shutdown ends those). Command.Path is taken relative to the working
// directory unless it is absolute on this host.
func (l *Local) Start(ctx context.Context, c Command) (Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkEnv(c.Env); err != nil {
		return nil, fmt.Errorf("target %s: start: %w", l.name, err)
	}
	prog, dir, err := l.progDir(c)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(prog, c.Args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), c.Env...)
	setProcessGroup(cmd)
	if c.Output != "" {
		out, err := l.path(c.Output)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return nil, fmt.Errorf("target %s: start: output: %w", l.name, err)
		}
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("target %s: start: output: %w", l.name, err)
		}
		defer f.Close() // the child has its own copy once started
		cmd.Stdout, cmd.Stderr = f, f
	}
	p := &localProcess{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// On Linux the process is killed when the thread that started it
		// ends (Pdeathsig: it dies with this process, as a simulated
		// guest's processes must), so it is started and waited for on a
		// thread of its own that lives as long as it does.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			p.wait()
		}
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("target %s: start %s: %w", l.name, c.Path, err)
	}
	l.mu.Lock()
	l.procs = append(l.procs, p)
	l.mu.Unlock()
	return p, nil
}

// Shutdown ends every process started on l, at once (SIGKILL), with
// every process still in its process group on Unix: what a VM's power-off
// does to its processes, so that a simulated guest's teardown leaves none
// (a hook's `sleep 300 &` included). A process that left its group
// (setsid, setpgid, a daemon's double fork) is not reached; outside Unix
// only the processes started are. A group whose leader has ended and been
// reaped is signalled only while no process holds the leader's pid (the
// OS does not reuse a pid while a group of that id has members, so a
// process with it means the group is gone). Close does not do this: a
// Target's Close leaves its processes running.
func (l *Local) Shutdown() error {
	l.mu.Lock()
	procs := l.procs
	l.procs = nil
	l.mu.Unlock()
	var errs []error
	for _, p := range procs {
		if err := p.shutdown(); err != nil {
			errs = append(errs, fmt.Errorf("target %s: %w", l.name, err))
		}
	}
	return errors.Join(errs...)
}

// progDir resolves the program and its working directory.
func (l *Local) progDir(c Command) (prog, dir string, err error) {
	switch {
	case c.Path == "":
		return "", "", fmt.Errorf("target %s: start: empty Command.Path", l.name)
	case filepath.IsAbs(c.Path):
		prog = c.Path
	default:
		if prog, err = l.path(c.Path); err != nil {
			return "", "", err
		}
	}
	dir = l.dir
	if c.Dir != "" {
		if dir, err = l.path(c.Dir); err != nil {
			return "", "", err
		}
	}
	return prog, dir, nil
}

// checkEnv refuses an Env entry that is not KEY=VALUE. The error names the
// entry's index and key, never its value.
func checkEnv(env []string) error {
	for i, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("Command.Env[%d]: want KEY=VALUE (value not shown)", i)
		}
	}
	return nil
}

// localProcess is a program started by Local.Start.
type localProcess struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when Wait has returned
	code int           // exit code, valid once done is closed
}

func (p *localProcess) wait() {
	_ = p.cmd.Wait()
	p.code = p.cmd.ProcessState.ExitCode() // -1 when ended by a signal
	close(p.done)
}

// PID is the process id on this host (the process group's id on Unix).
func (p *localProcess) PID() int64 { return int64(p.cmd.Process.Pid) }

// State reports whether the process runs and, once it has ended, its exit
// code: -1 when a signal ended it.
func (p *localProcess) State(ctx context.Context) (bool, int, error) {
	if err := ctx.Err(); err != nil {
		return false, 0, err
	}
	select {
	case <-p.done:
		return false, p.code, nil
	default:
		return true, 0, nil
	}
}

// Kill ends the process and, on Unix, every process in its group:
// SIGTERM, then SIGKILL once the leader has ended or after 5 s (or when
// ctx ends). Outside Unix it kills the process only. An ended process is
// not an error.
func (p *localProcess) Kill(ctx context.Context) error {
	return p.kill(ctx)
}
