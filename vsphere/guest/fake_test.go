package guest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/vmware/govmomi/vim25/types"
)

// fakeOps is a stand-in for a VM's guest operations, used because vcsim
// cannot run guest programs (its StartProgramInGuest crashes the
// simulator in govmomi v0.56.0, and its file transfers need a Docker
// container). Guest paths are local absolute paths, programs run with
// os/exec the way Linux VMware Tools runs them ("PROGRAM ARGUMENTS"
// through a shell, which execs the program, so the PID is the program's),
// and the ops error conventions are kept. It is a Linux guest only: the
// Windows command lines are tested as strings.
type fakeOps struct {
	skew time.Duration // added to reported modification times

	mu      sync.Mutex
	corrupt func(dst string, data []byte) []byte // alters an upload when set
	procs   map[int64]*fakeProc
	started []types.GuestProgramSpec
}

type fakeProc struct {
	cmd  *exec.Cmd
	done chan struct{}
	end  time.Time
	code int
}

func newFakeOps(t *testing.T) *fakeOps {
	f := &fakeOps{procs: map[int64]*fakeProc{}}
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, p := range f.procs {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return f
}

func (f *fakeOps) MakeDirectory(_ context.Context, dir string, parents bool) error {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return fmt.Errorf("mkdir %s: %w", dir, fs.ErrExist)
	}
	if parents {
		return os.MkdirAll(dir, 0o755)
	}
	return os.Mkdir(dir, 0o755)
}

func (f *fakeOps) Upload(_ context.Context, dst string, r io.Reader, size int64, mode uint32) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if int64(len(data)) != size {
		return fmt.Errorf("upload %s: got %d bytes, announced %d", dst, len(data), size)
	}
	f.mu.Lock()
	if f.corrupt != nil {
		data = f.corrupt(dst, data)
	}
	f.mu.Unlock()
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		return err
	}
	return os.Chmod(dst, fs.FileMode(mode&0o777))
}

func (f *fakeOps) Download(_ context.Context, src string) (io.ReadCloser, error) {
	return os.Open(src)
}

func (f *fakeOps) ModTime(_ context.Context, p string) (time.Time, error) {
	st, err := os.Stat(p)
	if err != nil {
		return time.Time{}, err
	}
	return st.ModTime().Add(f.skew), nil
}

func (f *fakeOps) MoveFile(_ context.Context, src, dst string) error { return os.Rename(src, dst) }

func (f *fakeOps) DeleteFile(_ context.Context, p string) error {
	st, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("delete %s: %w", p, errNotAFile)
	}
	return os.Remove(p)
}

func (f *fakeOps) DeleteDirectory(_ context.Context, p string) error {
	if _, err := os.Lstat(p); err != nil {
		return err
	}
	return os.RemoveAll(p)
}

func (f *fakeOps) StartProgram(_ context.Context, spec types.GuestProgramSpec) (int64, error) {
	cmd := exec.Command("/bin/sh", "-c", "exec "+shQuote(spec.ProgramPath)+" "+spec.Arguments)
	cmd.Dir = spec.WorkingDirectory
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, spec.EnvVariables...)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	p := &fakeProc{cmd: cmd, done: make(chan struct{})}
	pid := int64(cmd.Process.Pid)
	f.mu.Lock()
	f.procs[pid] = p
	f.started = append(f.started, spec)
	f.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		f.mu.Lock()
		p.end, p.code = time.Now(), cmd.ProcessState.ExitCode()
		f.mu.Unlock()
		close(p.done)
	}()
	return pid, nil
}

func (f *fakeOps) ListProcess(_ context.Context, pid int64) (*types.GuestProcessInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.procs[pid]
	if !ok {
		return nil, nil
	}
	info := &types.GuestProcessInfo{Pid: pid}
	if !p.end.IsZero() {
		info.EndTime = types.NewTime(p.end)
		info.ExitCode = int32(p.code)
	}
	return info, nil
}

func (f *fakeOps) TerminateProcess(_ context.Context, pid int64) error {
	f.mu.Lock()
	p, ok := f.procs[pid]
	f.mu.Unlock()
	if !ok {
		return fmt.Errorf("pid %d: %w", pid, errNoProcess)
	}
	select {
	case <-p.done:
		return fmt.Errorf("pid %d ended: %w", pid, errNoProcess)
	default:
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// wait blocks until the fake's process pid has ended (a test helper: the
// Target itself only polls State).
func (f *fakeOps) wait(t *testing.T, pid int64) {
	t.Helper()
	f.mu.Lock()
	p, ok := f.procs[pid]
	f.mu.Unlock()
	if !ok {
		t.Fatalf("no fake process %d", pid)
	}
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		t.Fatalf("process %d did not end within a minute", pid)
	}
}

// flipFirstByte corrupts every upload whose content is not empty.
func flipFirstByte(_ string, data []byte) []byte {
	if len(data) == 0 {
		return data
	}
	out := bytes.Clone(data)
	out[0] ^= 0xff
	return out
}
