package guest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/guest"
	"github.com/vmware/govmomi/guest/toolbox"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// ops are the guest operations a Target needs, on guest-spelled absolute
// paths. realOps sends them to vSphere; the tests use a fake over a local
// directory and os/exec, because vcsim cannot run guest programs.
//
// Error conventions every implementation keeps: a missing path wraps
// fs.ErrNotExist, an existing directory given to MakeDirectory wraps
// fs.ErrExist, DeleteFile on a directory wraps errNotAFile, and
// TerminateProcess on an unknown process wraps errNoProcess.
type ops interface {
	// MakeDirectory creates dir (and its parents when parents is set).
	MakeDirectory(ctx context.Context, dir string, parents bool) error
	// Upload writes size bytes from r to dst, replacing it, with the
	// POSIX permission bits mode (ignored on Windows).
	Upload(ctx context.Context, dst string, r io.Reader, size int64, mode uint32) error
	// Download streams src's content.
	Download(ctx context.Context, src string) (io.ReadCloser, error)
	// ModTime returns the guest's modification time of p.
	ModTime(ctx context.Context, p string) (time.Time, error)
	// MoveFile renames src to dst, replacing dst.
	MoveFile(ctx context.Context, src, dst string) error
	// DeleteFile removes the file p.
	DeleteFile(ctx context.Context, p string) error
	// DeleteDirectory removes the directory p and everything below.
	DeleteDirectory(ctx context.Context, p string) error
	// StartProgram starts spec and returns the guest's process id.
	StartProgram(ctx context.Context, spec types.GuestProgramSpec) (int64, error)
	// ListProcess returns pid's record, or nil when the guest lists
	// no such process (it keeps ended ones for about 5 minutes).
	ListProcess(ctx context.Context, pid int64) (*types.GuestProcessInfo, error)
	// TerminateProcess ends pid.
	TerminateProcess(ctx context.Context, pid int64) error
}

var (
	errNotAFile  = errors.New("not a file")
	errNoProcess = errors.New("no such guest process")
)

// realOps implements ops with govmomi's guest package over one VM.
type realOps struct {
	fm        *guest.FileManager
	pm        *guest.ProcessManager
	tb        *toolbox.Client // file transfers (URL rewriting, host thumbprint)
	auth      *types.NamePasswordAuthentication
	windows   bool
	simulated bool // the endpoint is vcsim and the VM has no container: StartProgram is refused
	// docker says the endpoint is vcsim and a container backs the VM:
	// a program starts as `docker exec -e K=V ...` on vcsim's host,
	// through its shell.
	docker bool
}

func newRealOps(ctx context.Context, c *vim25.Client, vm types.ManagedObjectReference, goos string, a Auth, container bool) (*realOps, error) {
	m := guest.NewOperationsManager(c, vm)
	pm, err := m.ProcessManager(ctx)
	if err != nil {
		return nil, fmt.Errorf("guest process manager: %w", err)
	}
	fm, err := m.FileManager(ctx)
	if err != nil {
		return nil, fmt.Errorf("guest file manager: %w", err)
	}
	auth := &types.NamePasswordAuthentication{Username: a.User, Password: a.Password}
	sim := isSimulator(ctx, c)
	o := &realOps{fm: fm, pm: pm, auth: auth, windows: goos == "windows", simulated: !container && sim, docker: container && sim}
	o.tb = &toolbox.Client{ProcessManager: pm, FileManager: fm, Authentication: auth}
	return o, nil
}

// isSimulator reports whether c talks to vcsim. vcsim's About is a copy of
// a real vCenter's or ESXi's, so it is told by what only vcsim has: the
// "vcsim." settings of its OptionManager (vcsim.home, vcsim.server.url).
// A real server answers InvalidName; any failure counts as "not vcsim".
func isSimulator(ctx context.Context, c *vim25.Client) bool {
	if c.ServiceContent.Setting == nil {
		return false
	}
	opts, err := object.NewOptionManager(c, *c.ServiceContent.Setting).Query(ctx, "vcsim.")
	return err == nil && len(opts) > 0
}

func (o *realOps) MakeDirectory(ctx context.Context, dir string, parents bool) error {
	return mapFault(o.fm.MakeDirectory(ctx, o.auth, dir, parents))
}

func (o *realOps) Upload(ctx context.Context, dst string, r io.Reader, size int64, mode uint32) error {
	var attr types.BaseGuestFileAttributes = &types.GuestWindowsFileAttributes{}
	if !o.windows {
		attr = &types.GuestPosixFileAttributes{Permissions: int64(mode & 0o7777)}
	}
	p := soap.DefaultUpload
	p.ContentLength = size
	// toolbox.Client.Upload takes a zero length as "unknown" and reads r
	// to count it, which for an empty file yields the same zero.
	if err := o.tb.Upload(ctx, r, dst, p, attr, true); err != nil {
		return mapFault(err)
	}
	if o.docker && mode&0o111 != 0 {
		// vcsim writes a container's file with mode 0444 whatever the
		// attributes say: an executable needs its mode set (the others
		// stay 0444, which root, whom the programs run as, reads and
		// writes anyway).
		return mapFault(o.fm.ChangeFileAttributes(ctx, o.auth, dst, attr))
	}
	return nil
}

func (o *realOps) Download(ctx context.Context, src string) (io.ReadCloser, error) {
	rc, _, err := o.tb.Download(ctx, src)
	if err != nil && o.docker {
		if o.missing(ctx, src) {
			return nil, fmt.Errorf("%w: %s (%w)", fs.ErrNotExist, src, err)
		}
		// There, and not read: vcsim's tar fails on a file replaced
		// while it reads it (an agent's status file, renamed into
		// place). Once more.
		rc, _, err = o.tb.Download(ctx, src)
	}
	return rc, mapFault(err)
}

// missing says a listing of file p's directory in a container-backed
// vcsim VM finds no p there: vcsim answers the download of a missing file
// with HTTP status 500 alone. A directory that cannot be listed says
// nothing (false).
func (o *realOps) missing(ctx context.Context, p string) bool {
	dir, base := path.Split(p)
	if dir == "" || base == "" {
		return false
	}
	l, err := o.fm.ListFiles(ctx, o.auth, dir, 0, 1, base)
	return err == nil && len(l.Files) == 0
}

func (o *realOps) ModTime(ctx context.Context, p string) (time.Time, error) {
	l, err := o.fm.ListFiles(ctx, o.auth, p, 0, 1, "")
	if err != nil {
		return time.Time{}, mapFault(err)
	}
	if len(l.Files) == 0 || l.Files[0].Attributes == nil {
		return time.Time{}, fmt.Errorf("list %s: the guest returned no attributes", p)
	}
	mt := l.Files[0].Attributes.GetGuestFileAttributes().ModificationTime
	if mt == nil {
		return time.Time{}, fmt.Errorf("list %s: the guest returned no modification time", p)
	}
	return *mt, nil
}

func (o *realOps) MoveFile(ctx context.Context, src, dst string) error {
	return mapFault(o.fm.MoveFile(ctx, o.auth, src, dst, true))
}

func (o *realOps) DeleteFile(ctx context.Context, p string) error {
	return mapFault(o.fm.DeleteFile(ctx, o.auth, p))
}

func (o *realOps) DeleteDirectory(ctx context.Context, p string) error {
	return mapFault(o.fm.DeleteDirectory(ctx, o.auth, p, true))
}

// StartProgram refuses on a vcsim VM without a container (ErrSimulator)
// without sending anything: vcsim v0.56.0 panics in StartProgramInGuest
// then, and its process manager deadlocks the test server.
// spec.EnvVariables are added to the guest's default environment
// (ReadEnvironmentVariableInGuest), since StartProgramInGuest takes them
// as the complete environment. In a container-backed vcsim VM they are
// docker exec's -e options, additions to the container's environment
// that pass through vcsim's host shell: each is quoted once, and vcsim,
// which cannot read a guest's environment, is not asked for it.
func (o *realOps) StartProgram(ctx context.Context, spec types.GuestProgramSpec) (int64, error) {
	if o.simulated {
		return 0, ErrSimulator
	}
	if o.docker {
		env := make([]string, len(spec.EnvVariables))
		for i, kv := range spec.EnvVariables {
			env[i] = shQuote(kv)
		}
		spec.EnvVariables = env
	} else if len(spec.EnvVariables) > 0 {
		// The spec's variables are the program's whole environment, not
		// additions: start from the guest's own (the login's) and
		// override.
		base, err := o.pm.ReadEnvironmentVariable(ctx, o.auth, nil)
		if err != nil {
			return 0, fmt.Errorf("read the guest's environment: %w", mapFault(err))
		}
		spec.EnvVariables = mergeEnv(base, spec.EnvVariables, o.windows)
	}
	pid, err := o.pm.StartProgram(ctx, o.auth, &spec)
	return pid, mapFault(err)
}

func (o *realOps) ListProcess(ctx context.Context, pid int64) (*types.GuestProcessInfo, error) {
	l, err := o.pm.ListProcesses(ctx, o.auth, []int64{pid})
	if err != nil {
		return nil, mapFault(err)
	}
	for i := range l {
		if l[i].Pid == pid {
			return &l[i], nil
		}
	}
	return nil, nil
}

func (o *realOps) TerminateProcess(ctx context.Context, pid int64) error {
	return mapFault(o.pm.TerminateProcess(ctx, o.auth, pid))
}

// mapFault turns the guest faults a Target reacts to into the ops error
// conventions, keeping the fault in the chain for fault.Is.
func mapFault(err error) error {
	switch {
	case err == nil:
		return nil
	case fault.Is(err, &types.FileNotFound{}):
		return fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	case fault.Is(err, &types.FileAlreadyExists{}):
		return fmt.Errorf("%w: %w", fs.ErrExist, err)
	case fault.Is(err, &types.NotAFile{}):
		return fmt.Errorf("%w: %w", errNotAFile, err)
	case fault.Is(err, &types.GuestProcessNotFound{}):
		return fmt.Errorf("%w: %w", errNoProcess, err)
	case fault.Is(err, &types.GuestOperationsUnavailable{}), fault.Is(err, &types.InvalidPowerState{}):
		return fmt.Errorf("%w: %w", ErrToolsUnavailable, err)
	case fault.Is(err, &types.InvalidGuestLogin{}), fault.Is(err, &types.GuestPermissionDenied{}):
		return fmt.Errorf("guest login refused (check %s): %w", EnvGuestLogin, err)
	}
	return err
}

// mergeEnv returns base with add's KEY=VALUE pairs set: a key in add
// replaces base's (case-insensitively on Windows), keeping base's order,
// and new keys follow in add's order (a later duplicate wins).
func mergeEnv(base, add []string, windows bool) []string {
	key := func(kv string) string {
		k, _, _ := strings.Cut(kv, "=")
		if windows {
			return strings.ToUpper(k)
		}
		return k
	}
	set := map[string]string{}
	var order []string
	for _, kv := range add {
		k := key(kv)
		if _, ok := set[k]; !ok {
			order = append(order, k)
		}
		set[k] = kv
	}
	out := make([]string, 0, len(base)+len(add))
	for _, kv := range base {
		k := key(kv)
		if v, ok := set[k]; ok {
			out = append(out, v)
			delete(set, k)
			continue
		}
		out = append(out, kv)
	}
	for _, k := range order {
		if v, ok := set[k]; ok {
			out = append(out, v)
		}
	}
	return out
}
