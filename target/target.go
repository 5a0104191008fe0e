// Package target runs a program somewhere else: in a local directory that
// stands in for a VM (Local), on a host reached by SSH (SSH), or inside a
// VM through VMware Tools guest operations (vsphere/guest satisfies the
// same interface). A campaign uses it to put the vmbench agent in every
// VM, start it, and read back the files it leaves.
//
// Every Target owns one working directory on its host, Info().Dir, made
// when the Target is opened. All remote paths given to its methods are
// slash-separated and relative to that directory, and may not leave it
// ("..", an absolute path or an empty element is refused with
// ErrBadPath), so a campaign can only write, read and remove its own
// files; RemoveAll(".") removes the directory itself.
//
// Secrets (a database password, an SSH password) reach a program through
// Command.Env only: they never appear in an argument list, an error or
// anything a Target writes.
//
// This package imports nothing of vmbench's but internal/boundedread, a
// leaf that reads files within a bound.
package target

import (
	"context"
	"errors"
	"time"
)

// Target is a place where a program runs. Methods are safe for concurrent
// use unless the implementation says otherwise.
type Target interface {
	// Name is the target's name in messages: the VM's name.
	Name() string
	// Info reports the host's OS and architecture, the working
	// directory, and the clock offset against the caller's clock,
	// measured at this call.
	Info(ctx context.Context) (Info, error)
	// Upload copies the local file to the remote path (parent
	// directories created, mode applied) and checks on arrival that
	// the remote file's SHA-256 is the local one's; a mismatch returns
	// an error wrapping ErrChecksum and removes the remote file. The
	// file appears whole or not at all (written beside, then renamed).
	Upload(ctx context.Context, local, remote string, mode uint32) error
	// WriteFile writes data to the remote path like Upload, for small
	// files made in memory (a job description).
	WriteFile(ctx context.Context, remote string, data []byte, mode uint32) error
	// ReadFile returns the remote file's content; a missing file is an
	// error wrapping fs.ErrNotExist.
	ReadFile(ctx context.Context, remote string) ([]byte, error)
	// ReadFileMax is ReadFile of a file the host's side may have changed
	// (what a guest's agent writes), bounded: a file that holds more than
	// limit bytes is refused with an error wrapping
	// boundedread.ErrTooLarge after at most limit+1 bytes of it were read,
	// and, where the host can tell (a Local or SSH target), one that is
	// not a regular file (a FIFO, a device, a symlink) with an error
	// wrapping boundedread.ErrNotRegular, unread.
	ReadFileMax(ctx context.Context, remote string, limit int64) ([]byte, error)
	// RemoveAll removes the remote path and everything below it; a
	// missing path is not an error.
	RemoveAll(ctx context.Context, remote string) error
	// Start starts the command detached from the caller: it goes on if
	// the caller's connection drops, and its output goes to
	// Command.Output. ctx bounds the start, not the process.
	Start(ctx context.Context, cmd Command) (Process, error)
	// Close releases the connection. It leaves processes and files as
	// they are.
	Close() error
}

// Info describes a target's host.
type Info struct {
	// OS and Arch are GOOS and GOARCH spellings: "linux", "windows";
	// "amd64", "arm64".
	OS, Arch string
	// Dir is the working directory's absolute path on the host, in the
	// host's own spelling.
	Dir string
	// ClockOffset is the host's clock minus the caller's, measured as
	// the host's time against the midpoint of the caller's request and
	// reply; ClockUncertainty is half that round trip, so the true
	// offset lies within ClockOffset ± ClockUncertainty.
	ClockOffset, ClockUncertainty time.Duration
}

// Command is a program to start on a target.
type Command struct {
	// Path is the program: a remote path relative to the working
	// directory (an uploaded binary), or an absolute path on the host.
	Path string
	// Args are its arguments, not including the program name.
	Args []string
	// Env holds KEY=VALUE pairs added to the program's environment.
	// Values may be secrets: no Target logs or records them.
	Env []string
	// Dir is the program's working directory, relative to the target's;
	// "" is the target's own.
	Dir string
	// Output is the remote file that receives the program's standard
	// output and standard error; "" discards them.
	Output string
}

// Process is a program started by Target.Start.
type Process interface {
	// PID is the process id on the target's host.
	PID() int64
	// State reports whether the process is still running and, once it
	// has ended, its exit code (-1 when the target cannot tell).
	State(ctx context.Context) (running bool, exitCode int, err error)
	// Kill ends the process (and, where the host allows, its children);
	// a process that has already ended is not an error.
	Kill(ctx context.Context) error
}

// ErrChecksum is wrapped by Upload's error when the file that arrived is
// not the file that was sent.
var ErrChecksum = errors.New("checksum mismatch after upload")

// ErrBadPath is wrapped by every method's error for a remote path that is
// absolute, empty, contains "..", or would otherwise leave the working
// directory.
var ErrBadPath = errors.New("remote path outside the working directory")
