package guest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/vim25/types"

	"vmbench/target"
)

// The guest programs Start and Kill use. StartProgramInGuest needs
// absolute paths; Windows guests are assumed to have their system in
// C:\Windows.
const (
	posixShell  = "/bin/sh"
	windowsCmd  = `C:\Windows\System32\cmd.exe`
	windowsKill = `C:\Windows\System32\taskkill.exe`
)

// Start starts cmd in the guest through StartProgramInGuest, detached from
// the caller (the process belongs to the guest, not to the vSphere
// session). Guest operations cannot redirect output, so the program runs
// under the guest's shell with its input from the null device and its
// standard output and error written to one file (replaced if it exists):
//
//	Linux:   /bin/sh -c 'exec PROG ARGS </dev/null >OUT 2>&1'
//	Windows: cmd.exe /d /v:off /s /c ""PROG" ARGS <NUL >"OUT" 2>&1"
//
// (OUT is /dev/null or NUL when Command.Output is ""). On Linux the PID is
// the program's own (exec); on Windows it is cmd.exe's, whose exit code is
// the program's. Command.Env goes to the guest in the spec's environment
// variables, outside the argument list, added to the guest login's
// default environment; no error names a value. Output's parent
// directories are created. On vcsim Start returns an error wrapping
// ErrSimulator.
func (t *Target) Start(ctx context.Context, cmd target.Command) (target.Process, error) {
	spec, err := t.programSpec(ctx, cmd)
	if err != nil {
		return nil, err
	}
	pid, err := t.ops.StartProgram(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", t.name, cmd.Path, err)
	}
	return &process{t: t, pid: pid}, nil
}

// programSpec checks cmd and builds the StartProgramInGuest spec; it
// creates Output's parent directory.
func (t *Target) programSpec(ctx context.Context, cmd target.Command) (types.GuestProgramSpec, error) {
	var spec types.GuestProgramSpec
	prog, err := t.programPath(cmd.Path)
	if err != nil {
		return spec, err
	}
	wd := t.dir
	if cmd.Dir != "" {
		if err := t.checkRemote("Start: Command.Dir", cmd.Dir); err != nil {
			return spec, err
		}
		wd = t.guestPath(cmd.Dir)
	}
	for i, kv := range cmd.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.ContainsAny(k, "\x00") {
			return spec, fmt.Errorf("%s: Start: Command.Env[%d] is not KEY=VALUE (the value is not shown)", t.name, i)
		}
	}
	out := "/dev/null"
	if t.os == "windows" {
		out = "NUL"
	}
	if cmd.Output != "" {
		if err := t.checkFile("Start: Command.Output", cmd.Output); err != nil {
			return spec, err
		}
		out = t.guestPath(cmd.Output)
		if dir, _ := t.guestParent(cmd.Output); dir != t.dir {
			if err := t.ops.MakeDirectory(ctx, dir, true); err != nil && !isExist(err) {
				return spec, fmt.Errorf("%s: Start: make output directory %s: %w", t.name, dir, err)
			}
		}
	}
	spec.WorkingDirectory = wd
	spec.EnvVariables = append([]string(nil), cmd.Env...)
	if t.os == "windows" {
		spec.ProgramPath = windowsCmd
		spec.Arguments, err = windowsCommand(prog, cmd.Args, out)
		if err != nil {
			return spec, fmt.Errorf("%s: Start: %w", t.name, err)
		}
		return spec, nil
	}
	spec.ProgramPath = posixShell
	spec.Arguments = posixCommand(prog, cmd.Args, out)
	return spec, nil
}

// programPath resolves Command.Path: an absolute guest path as it is, a
// relative one (checked as a remote path) below the working directory.
func (t *Target) programPath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%s: Start: Command.Path is empty: %w", t.name, target.ErrBadPath)
	}
	if t.os == "windows" && winAbs.MatchString(strings.ReplaceAll(p, "/", `\`)) {
		return strings.ReplaceAll(p, "/", `\`), nil
	}
	if t.os != "windows" && strings.HasPrefix(p, "/") {
		return p, nil
	}
	if err := t.checkFile("Start: Command.Path", p); err != nil {
		return "", err
	}
	return t.guestPath(p), nil
}

// posixCommand returns StartProgramInGuest's Arguments for /bin/sh. Linux
// Tools runs "PROGRAM ARGUMENTS" through a shell itself, so the script is
// quoted once for that shell: it reaches /bin/sh -c as one argument.
func posixCommand(prog string, args []string, out string) string {
	var b strings.Builder
	b.WriteString("exec ")
	b.WriteString(shQuote(prog))
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(shQuote(a))
	}
	b.WriteString(" </dev/null >")
	b.WriteString(shQuote(out))
	b.WriteString(" 2>&1")
	return "-c " + shQuote(b.String())
}

var shSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shQuote quotes s as one POSIX sh word: as it is when it holds only
// characters sh never interprets, else in single quotes (each single
// quote inside closes the quoting, is escaped with a backslash, and
// reopens it).
func shQuote(s string) string {
	if shSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// windowsCommand returns StartProgramInGuest's Arguments for cmd.exe. The
// program and the output file are in plain double quotes, which cmd.exe
// uses to find them (so they may hold spaces but not '"' or '%', which
// is refused). Each argument is quoted by the rules programs use to split
// their command line (CommandLineToArgvW, Go's syscall.EscapeArg) and then
// every cmd.exe metacharacter in it, quotes included, is escaped with '^',
// so cmd.exe passes it through literally: no '&', '|', '>' or
// '%VAR%' in an argument is interpreted. /s makes cmd.exe strip exactly
// the outer pair of quotes; /v:off turns delayed '!' expansion off; /d
// skips AutoRun commands.
func windowsCommand(prog string, args []string, out string) (string, error) {
	for _, p := range []struct{ what, v string }{{"program path", prog}, {"output path", out}} {
		if strings.ContainsAny(p.v, "\"%\x00\r\n") {
			return "", fmt.Errorf("%s %q holds '\"', '%%' or a control character, which cmd.exe cannot take in a quoted path: %w", p.what, p.v, target.ErrBadPath)
		}
	}
	var b strings.Builder
	b.WriteString(`/d /v:off /s /c ""`)
	b.WriteString(prog)
	b.WriteByte('"')
	for _, a := range args {
		if strings.ContainsAny(a, "\x00\r\n") {
			return "", errors.New("an argument holds a NUL or a line break, which cmd.exe cannot pass")
		}
		b.WriteByte(' ')
		b.WriteString(cmdEscape(argvQuote(a)))
	}
	b.WriteString(" <NUL >")
	if out == "NUL" {
		b.WriteString("NUL")
	} else {
		b.WriteString(`"` + out + `"`)
	}
	b.WriteString(` 2>&1"`)
	return b.String(), nil
}

// argvQuote quotes s by the Windows command-line rules: unquoted when it
// has no space, tab or quote and is not empty; else in double quotes,
// with backslashes doubled before a quote (and before the closing quote)
// and each quote escaped as \".
func argvQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
			slashes = 0
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
			slashes = 0
		}
		if c != '\\' {
			b.WriteByte(c)
		}
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}

// cmdEscape puts '^' before every character cmd.exe interprets outside
// quotes.
func cmdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`()%!^"<>&|`, r) {
			b.WriteByte('^')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// process is a program started by Start.
type process struct {
	t   *Target
	pid int64
}

// PID returns the guest's process id (cmd.exe's on Windows).
func (p *process) PID() int64 { return p.pid }

// State lists the process in the guest: running until the guest reports
// an end time, then its exit code. A process the guest no longer lists
// (Tools keeps ended ones for about 5 minutes) is reported ended with
// exit code -1.
func (p *process) State(ctx context.Context) (bool, int, error) {
	info, err := p.t.ops.ListProcess(ctx, p.pid)
	if err != nil {
		return false, -1, fmt.Errorf("%s: state of process %d: %w", p.t.name, p.pid, err)
	}
	if info == nil {
		return false, -1, nil
	}
	if info.EndTime == nil {
		return true, 0, nil
	}
	return false, int(info.ExitCode), nil
}

// Kill ends the process; one that has ended already is not an error. On
// Linux it is TerminateProcessInGuest on the PID (the program itself,
// which Tools kills; its children are not). On Windows it starts
// taskkill /T /F on the PID, which ends cmd.exe and the program below it,
// and returns once taskkill has started: State tells when they have
// ended. If taskkill cannot start, TerminateProcessInGuest ends cmd.exe
// alone. On vcsim the Windows Kill returns ErrSimulator.
func (p *process) Kill(ctx context.Context) error {
	running, _, err := p.State(ctx)
	if err != nil {
		return err
	}
	if !running {
		return nil
	}
	if p.t.os == "windows" {
		spec := types.GuestProgramSpec{ProgramPath: windowsKill, Arguments: "/T /F /PID " + strconv.FormatInt(p.pid, 10), WorkingDirectory: p.t.dir}
		_, err := p.t.ops.StartProgram(ctx, spec)
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrSimulator) {
			return fmt.Errorf("%s: kill process %d: %w", p.t.name, p.pid, err)
		}
	}
	if err := p.t.ops.TerminateProcess(ctx, p.pid); err != nil && !errors.Is(err, errNoProcess) {
		return fmt.Errorf("%s: kill process %d: %w", p.t.name, p.pid, err)
	}
	return nil
}
