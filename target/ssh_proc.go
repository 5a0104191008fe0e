package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// stateDir is where, below the working directory, an SSH target's
// wrappers leave their programs' exit codes.
const stateDir = ".vmbench-target"

// Exit statuses of the start script before the program starts.
const (
	exitNoEnv     = 97 // standard input ended before every Env value was read
	exitNoDir     = 98 // cd or mkdir failed
	exitNoSetsid  = 96 // setsid is missing
	sshKillRounds = 50 // Kill waits up to 50 × 0.1 s after SIGTERM
)

// Start starts cmd detached: setsid and nohup put it in a session and
// process group of its own, standard input is /dev/null, output goes to
// Command.Output (or /dev/null), and a wrapper shell writes its exit code
// to a file under the working directory's .vmbench-target when it ends.
// Env values travel on the session's standard input, one a line, and the
// start script reads and exports them, so they never appear in a command
// line (which ps shows) nor on disk; a value holding a newline or a NUL
// is refused, and Env keys must be shell names ([A-Za-z_][A-Za-z0-9_]*).
// The PID is the wrapper's, which leads the process group.
func (s *SSH) Start(ctx context.Context, c Command) (Process, error) {
	keys, values, err := splitEnv(c.Env)
	if err != nil {
		return nil, fmt.Errorf("target %s: start: %w", s.name, err)
	}
	sp, err := s.startPaths(c)
	if err != nil {
		return nil, err
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	sp.exit = s.dir + "/" + stateDir + "/" + hex.EncodeToString(rnd[:]) + ".exit"
	script := startScript(sp, c.Args, keys)
	out, err := s.run(ctx, script, strings.NewReader(values))
	if err != nil {
		return nil, fmt.Errorf("target %s: start %s: %w", s.name, c.Path, err)
	}
	pid, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil || pid <= 0 {
		return nil, fmt.Errorf("target %s: start %s: the host printed %q, want the PID", s.name, c.Path, out)
	}
	return &sshProcess{s: s, pid: pid, exit: sp.exit}, nil
}

// startPaths are a start's absolute remote paths.
type startPaths struct {
	prog, dir, output, exit string // output "" is /dev/null
}

func (s *SSH) startPaths(c Command) (startPaths, error) {
	var sp startPaths
	var err error
	switch {
	case c.Path == "":
		return sp, fmt.Errorf("target %s: start: empty Command.Path", s.name)
	case path.IsAbs(c.Path):
		sp.prog = c.Path
	default:
		if sp.prog, err = s.remote(c.Path); err != nil {
			return sp, err
		}
	}
	sp.dir = s.dir
	if c.Dir != "" {
		if sp.dir, err = s.remote(c.Dir); err != nil {
			return sp, err
		}
	}
	if c.Output != "" {
		if sp.output, err = s.remote(c.Output); err != nil {
			return sp, err
		}
	}
	return sp, nil
}

// splitEnv checks Env and returns its keys and its values as lines for
// the start script's standard input. Errors name the entry's index and
// key, never its value.
func splitEnv(env []string) (keys []string, values string, err error) {
	var b strings.Builder
	for i, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !isShellName(k) {
			return nil, "", fmt.Errorf("Command.Env[%d]: want KEY=VALUE with KEY a shell name ([A-Za-z_][A-Za-z0-9_]*) (value not shown)", i)
		}
		if strings.ContainsAny(v, "\n\x00") {
			return nil, "", fmt.Errorf("Command.Env[%d] (%s): the value holds a newline or a NUL byte, which cannot be sent over SSH (value not shown)", i, k)
		}
		keys = append(keys, k)
		b.WriteString(v)
		b.WriteByte('\n')
	}
	return keys, b.String(), nil
}

func isShellName(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		ok := r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// startScript is the shell script that reads the Env values from standard
// input, exports them, and starts the wrapper detached, printing its PID.
// It holds the Env keys but no value.
func startScript(sp startPaths, args, keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "IFS= read -r %s || exit %d; export %s\n", k, exitNoEnv, k)
	}
	out := "/dev/null"
	mk := []string{path.Dir(sp.exit)}
	if sp.output != "" {
		out = sp.output
		mk = append(mk, path.Dir(sp.output))
	}
	fmt.Fprintf(&b, "cd -- %s || exit %d\n", shQuote(sp.dir), exitNoDir)
	fmt.Fprintf(&b, "mkdir -p -- %s || exit %d\n", shJoin(mk...), exitNoDir)
	fmt.Fprintf(&b, "command -v setsid >/dev/null 2>&1 || { echo 'setsid not found on the host (install util-linux)' >&2; exit %d; }\n", exitNoSetsid)
	tmp := sp.exit + ".tmp"
	wrapper := fmt.Sprintf(`"$@"; c=$?; echo "$c" > %s && mv -f -- %s %s`, shQuote(tmp), shQuote(tmp), shQuote(sp.exit))
	fmt.Fprintf(&b, "setsid nohup sh -c %s vmbench-wrapper %s </dev/null >%s 2>&1 &\n",
		shQuote(wrapper), shJoin(append([]string{sp.prog}, args...)...), shQuote(out))
	b.WriteString("echo $!\n")
	return b.String()
}

// sshProcess is a program started by SSH.Start.
type sshProcess struct {
	s    *SSH
	pid  int64
	exit string // the exit-code file the wrapper writes
}

// PID is the wrapper's process id on the host; it leads the process group.
func (p *sshProcess) PID() int64 { return p.pid }

// State reads the exit-code file; without one, the process runs while
// kill -0 reaches it and, where /proc exists, it is not a zombie. A
// process that ended without writing the file (killed) reports -1. A
// signal that ends the program but not its wrapper reports 128+n, as sh
// does. The file is read again after the liveness check, so a process
// that ends in between reports its code, not -1.
func (p *sshProcess) State(ctx context.Context) (bool, int, error) {
	pid := strconv.FormatInt(p.pid, 10)
	script := `f=` + shQuote(p.exit) + `
if [ -f "$f" ]; then echo "exit $(cat -- "$f")"; exit 0; fi
if kill -s 0 ` + pid + ` 2>/dev/null && ! grep -q '^State:[[:space:]]*Z' /proc/` + pid + `/status 2>/dev/null; then echo running; exit 0; fi
if [ -f "$f" ]; then echo "exit $(cat -- "$f")"; else echo gone; fi
`
	out, err := p.s.run(ctx, script, nil)
	if err != nil {
		return false, 0, fmt.Errorf("target %s: state of process %d: %w", p.s.name, p.pid, err)
	}
	f0 := strings.Fields(string(out))
	switch {
	case len(f0) == 1 && f0[0] == "running":
		return true, 0, nil
	case len(f0) == 1 && f0[0] == "gone":
		return false, -1, nil
	case len(f0) == 2 && f0[0] == "exit":
		code, err := strconv.Atoi(f0[1])
		if err != nil {
			return false, -1, nil
		}
		return false, code, nil
	}
	return false, 0, fmt.Errorf("target %s: state of process %d: the host printed %q", p.s.name, p.pid, out)
}

// Kill sends SIGTERM to the process group, waits until the group is gone
// or 5 s have passed, then sends SIGKILL. An ended process is not an
// error.
func (p *sshProcess) Kill(ctx context.Context) error {
	g := "-" + strconv.FormatInt(p.pid, 10)
	script := fmt.Sprintf(`kill -s TERM -- %[1]s 2>/dev/null || exit 0
i=0
while kill -s 0 -- %[1]s 2>/dev/null && [ $i -lt %[2]d ]; do sleep 0.1 2>/dev/null || sleep 1; i=$((i+1)); done
kill -s KILL -- %[1]s 2>/dev/null
exit 0
`, g, sshKillRounds)
	if _, err := p.s.run(ctx, script, nil); err != nil {
		return fmt.Errorf("target %s: kill process %d: %w", p.s.name, p.pid, err)
	}
	return nil
}
