//go:build unix

package target

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vmbench/internal/boundedread"
)

// The suite below runs the same checks on every Target whose working
// directory is also visible on this host at hostDir (a Local, or an SSH
// target on loopback).

// hangDeadline only detects a hang: a State poll that never sees the
// process end fails the test after it. It is not a timing assertion.
const hangDeadline = 60 * time.Second

// waitEnd polls State until the process has ended and returns its exit
// code.
func waitEnd(t *testing.T, p Process) int {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(hangDeadline)
	for {
		running, code, err := p.State(ctx)
		if err != nil {
			t.Fatalf("State: %v", err)
		}
		if !running {
			return code
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running after %v", p.PID(), hangDeadline)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not timing logic
	}
}

// waitFile polls until the host file exists and is non-empty.
func waitFile(t *testing.T, path string) []byte {
	t.Helper()
	deadline := time.Now().Add(hangDeadline)
	for {
		b, err := os.ReadFile(path)
		if err == nil && len(b) > 0 && bytes.HasSuffix(b, []byte("\n")) {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written after %v", path, hangDeadline)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not timing logic
	}
}

// processGone reports whether pid no longer exists or is a zombie (an
// orphan that init has not reaped yet has ended all the same).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func runSuite(t *testing.T, tg Target, hostDir string) {
	t.Run("Upload", func(t *testing.T) { suiteUpload(t, tg, hostDir) })
	t.Run("WriteReadRemove", func(t *testing.T) { suiteWriteRead(t, tg, hostDir) })
	t.Run("ReadFileMax", func(t *testing.T) { suiteReadFileMax(t, tg, hostDir) })
	t.Run("ExitCodes", func(t *testing.T) { suiteExitCodes(t, tg) })
	t.Run("OutputEnvDir", func(t *testing.T) { suiteOutputEnv(t, tg, hostDir) })
	t.Run("KillGroup", func(t *testing.T) { suiteKill(t, tg, hostDir) })
	t.Run("BadPaths", func(t *testing.T) { suiteBadPaths(t, tg) })
}

func suiteUpload(t *testing.T, tg Target, hostDir string) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "agent")
	data := bytes.Repeat([]byte("vmbench agent \x00\xff\n"), 40000) // ~640 KiB, binary
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tg.Upload(ctx, src, "bin/agent", 0o755); err != nil {
		t.Fatalf("Upload: %v", err)
	}
	got, err := os.ReadFile(filepath.Join(hostDir, "bin", "agent"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("uploaded bytes differ: %d bytes, want %d", len(got), len(data))
	}
	st, err := os.Stat(filepath.Join(hostDir, "bin", "agent"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", st.Mode().Perm())
	}
	ents, err := os.ReadDir(filepath.Join(hostDir, "bin"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Errorf("bin/ holds %d entries, want only agent (no temporary file left)", len(ents))
	}
	if err := tg.Upload(ctx, filepath.Join(t.TempDir(), "missing"), "x", 0o644); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Upload of a missing local file = %v, want fs.ErrNotExist", err)
	}
}

// suiteReadFileMax: a file the host's side wrote is read within its
// bound; one over it, a FIFO (which would block a reader), /dev/zero
// behind a symlink (endless) and a symlink to a regular file are refused
// at once, naming the file and, for size, the bound.
func suiteReadFileMax(t *testing.T, tg Target, hostDir string) {
	ctx := context.Background()
	dir := filepath.Join(hostDir, "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("status.json", `{"state": "measure"}`)
	write("big.json", strings.Repeat("x", 4097))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("status.json", filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want string // "" when read
		is   error
	}{
		{"status.json", "", nil},
		{"big.json", "more than 4 KiB, the bound on this file", boundedread.ErrTooLarge},
		{"fifo.json", "not a regular file", boundedread.ErrNotRegular},
		{"zero.json", "not a regular file", boundedread.ErrNotRegular},
		{"link.json", "not a regular file", boundedread.ErrNotRegular},
		{"missing.json", "", fs.ErrNotExist},
	} {
		done := make(chan struct{})
		var b []byte
		var err error
		go func() {
			defer close(done)
			b, err = tg.ReadFileMax(ctx, "run/"+tc.name, 4096)
		}()
		select {
		case <-done:
		case <-time.After(hangDeadline):
			t.Fatalf("ReadFileMax(%s) still blocked after %v", tc.name, hangDeadline)
		}
		switch {
		case tc.is == nil && (err != nil || string(b) != `{"state": "measure"}`):
			t.Errorf("ReadFileMax(%s) = %q, %v", tc.name, b, err)
		case tc.is != nil && (!errors.Is(err, tc.is) || !strings.Contains(err.Error(), "run/"+tc.name) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("ReadFileMax(%s) = %d bytes, %v; want an error wrapping %v naming the file and %q", tc.name, len(b), err, tc.is, tc.want)
		}
	}
}

func suiteWriteRead(t *testing.T, tg Target, hostDir string) {
	ctx := context.Background()
	data := []byte("{\"job\": \"it's a \\\"test\\\"\"}\n")
	if err := tg.WriteFile(ctx, "jobs/a b/job.json", data, 0o640); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	st, err := os.Stat(filepath.Join(hostDir, "jobs", "a b", "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	got, err := tg.ReadFile(ctx, "jobs/a b/job.json")
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("ReadFile = %q, %v; want %q", got, err, data)
	}
	if err := tg.WriteFile(ctx, "empty", nil, 0o600); err != nil {
		t.Fatalf("WriteFile empty: %v", err)
	}
	if got, err := tg.ReadFile(ctx, "empty"); err != nil || len(got) != 0 {
		t.Errorf("ReadFile empty = %q, %v", got, err)
	}
	if _, err := tg.ReadFile(ctx, "no/such/file"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile missing = %v, want fs.ErrNotExist", err)
	}
	if err := tg.RemoveAll(ctx, "jobs"); err != nil {
		t.Fatalf("RemoveAll: %v", err)
	}
	if _, err := os.Stat(filepath.Join(hostDir, "jobs")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("jobs/ still there after RemoveAll: %v", err)
	}
	if err := tg.RemoveAll(ctx, "jobs"); err != nil {
		t.Errorf("RemoveAll of a missing path = %v, want nil", err)
	}
}

func suiteExitCodes(t *testing.T, tg Target) {
	ctx := context.Background()
	for _, code := range []int{0, 1, 3, 42} {
		p, err := tg.Start(ctx, Command{Path: "/bin/sh", Args: []string{"-c", "exit " + strconv.Itoa(code)}})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		if p.PID() <= 0 {
			t.Errorf("PID = %d", p.PID())
		}
		if got := waitEnd(t, p); got != code {
			t.Errorf("exit code %d, want %d", got, code)
		}
		if err := p.Kill(ctx); err != nil {
			t.Errorf("Kill of an ended process = %v, want nil", err)
		}
	}
}

func suiteOutputEnv(t *testing.T, tg Target, hostDir string) {
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(hostDir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := tg.Start(ctx, Command{
		Path:   "/bin/sh",
		Args:   []string{"-c", `echo "out:$1"; echo "err:$VMBENCH_T1" >&2; pwd`, "sh", "it's a b"},
		Env:    []string{"VMBENCH_T1=a value with spaces ' and \\"},
		Dir:    "work",
		Output: "logs/out.txt",
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if code := waitEnd(t, p); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	got, err := tg.ReadFile(ctx, "logs/out.txt")
	if err != nil {
		t.Fatal(err)
	}
	wd, err := filepath.EvalSymlinks(filepath.Join(hostDir, "work"))
	if err != nil {
		t.Fatal(err)
	}
	want := "out:it's a b\nerr:a value with spaces ' and \\\n" + wd + "\n"
	if string(got) != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

func suiteKill(t *testing.T, tg Target, hostDir string) {
	ctx := context.Background()
	p, err := tg.Start(ctx, Command{
		Path: "/bin/sh",
		Args: []string{"-c", `sleep 1000 & echo $! > gc.pid.tmp; mv gc.pid.tmp gc.pid; wait`},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = p.Kill(context.Background()) }) // when a check below fails
	b := waitFile(t, filepath.Join(hostDir, "gc.pid"))
	gc, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if running, _, err := p.State(ctx); err != nil || !running {
		t.Fatalf("State before Kill = %v, %v; want running", running, err)
	}
	if err := p.Kill(ctx); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if code := waitEnd(t, p); code != -1 && code < 128 {
		t.Errorf("exit code after Kill %d, want -1 or a signal's 128+n", code)
	}
	deadline := time.Now().Add(hangDeadline)
	for !processGone(gc) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still alive after Kill", gc)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not timing logic
	}
	if err := p.Kill(ctx); err != nil {
		t.Errorf("second Kill = %v, want nil", err)
	}
}

func suiteBadPaths(t *testing.T, tg Target) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(src, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "/etc/passwd", "../x", "a/../../x", "a//b", "a/"} {
		calls := map[string]error{
			"Upload":    tg.Upload(ctx, src, bad, 0o644),
			"WriteFile": tg.WriteFile(ctx, bad, []byte("x"), 0o644),
			"RemoveAll": tg.RemoveAll(ctx, bad),
		}
		_, calls["ReadFile"] = tg.ReadFile(ctx, bad)
		if bad != "" && bad != "/etc/passwd" { // absolute Path is allowed
			_, calls["Start.Path"] = tg.Start(ctx, Command{Path: bad})
		}
		if bad != "" { // "" is the default working directory and no output
			_, calls["Start.Dir"] = tg.Start(ctx, Command{Path: "/bin/true", Dir: bad})
			_, calls["Start.Output"] = tg.Start(ctx, Command{Path: "/bin/true", Output: bad})
		}
		for name, err := range calls {
			if !errors.Is(err, ErrBadPath) {
				t.Errorf("%s(%q) = %v, want ErrBadPath", name, bad, err)
			}
		}
	}
	for _, name := range []string{"Upload", "WriteFile"} {
		var err error
		if name == "Upload" {
			err = tg.Upload(ctx, src, ".", 0o644)
		} else {
			err = tg.WriteFile(ctx, ".", nil, 0o644)
		}
		if !errors.Is(err, ErrBadPath) {
			t.Errorf("%s(\".\") = %v, want ErrBadPath", name, err)
		}
	}
}
