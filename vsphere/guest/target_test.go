package guest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/target"
)

// These tests run the whole Target method set over fakeOps (a local
// directory and os/exec), because vcsim cannot run guest programs; the
// vcsim tests in sim_test.go cover what it can.

func openFake(t *testing.T) (*Target, *fakeOps, string) {
	t.Helper()
	f := newFakeOps(t)
	dir := filepath.Join(t.TempDir(), "guest", "vmbench")
	tg, err := open(context.Background(), f, "linux", "amd64", Config{Name: "vm1", Auth: Auth{User: "bench", Password: "pw"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("working directory not made: %v", err)
	}
	return tg, f, dir
}

func TestOpenTwiceKeepsDirectory(t *testing.T) {
	tg, f, dir := openFake(t)
	if err := tg.WriteFile(context.Background(), "keep", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := open(context.Background(), f, "linux", "amd64", Config{Name: "vm1", Auth: Auth{User: "u", Password: "p"}, Dir: dir}); err != nil {
		t.Fatalf("reopening an existing directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep")); err != nil {
		t.Fatal(err)
	}
}

func TestUploadAndRead(t *testing.T) {
	ctx := context.Background()
	tg, _, dir := openFake(t)
	local := filepath.Join(t.TempDir(), "agent")
	want := []byte("#!/bin/sh\necho hi\n")
	if err := os.WriteFile(local, want, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tg.Upload(ctx, local, "bin/agent", 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "bin", "agent"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", st.Mode().Perm())
	}
	got, err := tg.ReadFile(ctx, "bin/agent")
	if err != nil || string(got) != string(want) {
		t.Fatalf("ReadFile = %q, %v; want %q", got, err, want)
	}
	if err := tg.WriteFile(ctx, "job.json", nil, 0o600); err != nil {
		t.Fatalf("empty WriteFile: %v", err)
	}
	if got, err := tg.ReadFile(ctx, "job.json"); err != nil || len(got) != 0 {
		t.Fatalf("empty file read back as %q, %v", got, err)
	}
	noTemps(t, dir)
}

func TestCorruptedTransfer(t *testing.T) {
	ctx := context.Background()
	tg, f, dir := openFake(t)
	if err := tg.WriteFile(ctx, "job.json", []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.corrupt = flipFirstByte
	err := tg.WriteFile(ctx, "job.json", []byte(`{"new":1}`), 0o600)
	if !errors.Is(err, target.ErrChecksum) {
		t.Fatalf("corrupted transfer: err = %v, want ErrChecksum", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "job.json")); string(got) != "old" {
		t.Errorf("destination changed to %q by a failed upload", got)
	}
	noTemps(t, dir)
}

// noTemps fails when an upload's temporary file is left below dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".vmbench-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestReadMissingAndRemove(t *testing.T) {
	ctx := context.Background()
	tg, _, dir := openFake(t)
	if _, err := tg.ReadFile(ctx, "nope.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: err = %v, want fs.ErrNotExist", err)
	}
	for _, p := range []string{"a/b/c.txt", "a/d.txt", "top.txt"} {
		if err := tg.WriteFile(ctx, p, []byte(p), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"top.txt", "a", "never/there"} {
		if err := tg.RemoveAll(ctx, p); err != nil {
			t.Fatalf("RemoveAll(%q): %v", p, err)
		}
		if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	if err := tg.RemoveAll(ctx, "."); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("RemoveAll(.) left the working directory: %v", err)
	}
	if err := tg.RemoveAll(ctx, "."); err != nil {
		t.Errorf("RemoveAll(.) twice: %v", err)
	}
}

func TestBadPaths(t *testing.T) {
	ctx := context.Background()
	tg, _, _ := openFake(t)
	for _, p := range []string{"", "/etc/passwd", "..", "../x", "a/../../x", "a//b", "a/./b", "a/", `a\b`, "./a"} {
		if err := tg.WriteFile(ctx, p, nil, 0o600); !errors.Is(err, target.ErrBadPath) {
			t.Errorf("WriteFile(%q): err = %v, want ErrBadPath", p, err)
		}
		if _, err := tg.ReadFile(ctx, p); !errors.Is(err, target.ErrBadPath) {
			t.Errorf("ReadFile(%q): err = %v, want ErrBadPath", p, err)
		}
		if err := tg.RemoveAll(ctx, p); !errors.Is(err, target.ErrBadPath) {
			t.Errorf("RemoveAll(%q): err = %v, want ErrBadPath", p, err)
		}
		if p == "" || strings.HasPrefix(p, "/") {
			continue // an empty Path is refused; an absolute one is a host program
		}
		if _, err := tg.Start(ctx, target.Command{Path: p}); !errors.Is(err, target.ErrBadPath) {
			t.Errorf("Start(Path %q): err = %v, want ErrBadPath", p, err)
		}
		if _, err := tg.Start(ctx, target.Command{Path: "/bin/true", Output: p}); !errors.Is(err, target.ErrBadPath) {
			t.Errorf("Start(Output %q): err = %v, want ErrBadPath", p, err)
		}
	}
	if _, err := tg.Start(ctx, target.Command{Path: ""}); !errors.Is(err, target.ErrBadPath) {
		t.Errorf("Start with an empty Path: %v", err)
	}
}

func TestStartOutputEnvExitCode(t *testing.T) {
	ctx := context.Background()
	tg, f, dir := openFake(t)
	script := "#!/bin/sh\necho \"arg=$1 secret=$VMB_SECRET pwd=$(pwd)\"\necho oops >&2\nexit 3\n"
	if err := tg.WriteFile(ctx, "bin/run.sh", []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := `s3 cr'e"t $HOME`
	p, err := tg.Start(ctx, target.Command{
		Path:   "bin/run.sh",
		Args:   []string{"it's a b;c"},
		Env:    []string{"VMB_SECRET=" + secret},
		Dir:    "work",
		Output: "logs/out.txt",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.started {
		if strings.Contains(s.Arguments, "s3 cr") || strings.Contains(s.ProgramPath, "s3 cr") {
			t.Errorf("the secret is in the argument list: %q", s.Arguments)
		}
	}
	f.wait(t, p.PID())
	running, code, err := p.State(ctx)
	if err != nil || running || code != 3 {
		t.Fatalf("State = %v, %d, %v; want ended with 3", running, code, err)
	}
	out, err := tg.ReadFile(ctx, "logs/out.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := "arg=it's a b;c secret=" + secret + " pwd=" + filepath.Join(dir, "work") + "\noops\n"
	if string(out) != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if err := p.Kill(ctx); err != nil {
		t.Errorf("Kill of an ended process: %v", err)
	}
}

func TestStartDiscardsAndKill(t *testing.T) {
	ctx := context.Background()
	tg, f, _ := openFake(t)
	p, err := tg.Start(ctx, target.Command{Path: "/bin/sleep", Args: []string{"60"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.started[0].Arguments; !strings.Contains(got, ">/dev/null") {
		t.Errorf("no output: arguments %q do not discard to /dev/null", got)
	}
	running, _, err := p.State(ctx)
	if err != nil || !running {
		t.Fatalf("State right after Start = %v, %v; want running", running, err)
	}
	if err := p.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	f.wait(t, p.PID())
	if running, code, err := p.State(ctx); err != nil || running || code == 0 {
		t.Fatalf("State after Kill = %v, %d, %v; want ended with a non-zero code", running, code, err)
	}
	if err := p.Kill(ctx); err != nil {
		t.Errorf("second Kill: %v", err)
	}
	gone := &process{t: tg, pid: 1 << 40}
	if running, code, err := gone.State(ctx); err != nil || running || code != -1 {
		t.Errorf("unlisted process: State = %v, %d, %v; want ended, -1", running, code, err)
	}
}

func TestStartBadEnv(t *testing.T) {
	tg, _, _ := openFake(t)
	_, err := tg.Start(context.Background(), target.Command{Path: "/bin/true", Env: []string{"=hunter2"}})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "Env[0]") {
		t.Fatalf("bad Env: err = %v; want an error naming Env[0] without the value", err)
	}
}

func TestInfoClock(t *testing.T) {
	tg, f, dir := openFake(t)
	f.skew = 5 * time.Second
	info, err := tg.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.OS != "linux" || info.Arch != "amd64" || info.Dir != dir {
		t.Errorf("Info = %+v", info)
	}
	// The fake's guest clock is the local clock plus skew; file times
	// come from the kernel's coarse clock, up to a tick (<= 10 ms) behind.
	const tick = 20 * time.Millisecond
	if d := info.ClockOffset - f.skew; d > info.ClockUncertainty+tick || -d > info.ClockUncertainty+tick {
		t.Errorf("offset %v ± %v, want %v within the uncertainty", info.ClockOffset, info.ClockUncertainty, f.skew)
	}
	noTemps(t, dir)
}

func TestClockOffset(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 100000000, time.UTC)
	t1 := t0.Add(200 * time.Millisecond)
	for _, c := range []struct {
		name     string
		guest    time.Time
		off, unc time.Duration
	}{
		{"in sync", t0.Add(100 * time.Millisecond), 0, 100 * time.Millisecond},
		{"guest ahead", t0.Add(3*time.Second + 150*time.Millisecond), 3050 * time.Millisecond, 100 * time.Millisecond},
		{"guest behind", t0.Add(-2 * time.Second), -2100 * time.Millisecond, 100 * time.Millisecond},
		// 03:04:05 whole: the true time is in [05, 06), estimated 05.5.
		{"whole seconds", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), 300 * time.Millisecond, 600 * time.Millisecond},
	} {
		off, unc := clockOffset(t0, t1, c.guest)
		if off != c.off || unc != c.unc {
			t.Errorf("%s: clockOffset = %v ± %v, want %v ± %v", c.name, off, unc, c.off, c.unc)
		}
	}
}
