//go:build unix

package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"vmbench/internal/sshtest"
)

// newSSH starts a throwaway sshd on loopback and opens a target on it
// whose working directory is also hostDir on this host.
func newSSH(t *testing.T) (*SSH, *sshtest.Server, string) {
	t.Helper()
	srv := sshtest.Start(t)
	dir := filepath.Join(t.TempDir(), "vm1 work")
	s, err := NewSSH(context.Background(), SSHConfig{
		Name: "vm1", Addr: srv.Addr, User: srv.User, KeyFile: srv.KeyFile,
		KnownHosts: srv.KnownHosts(t), Dir: dir,
	})
	if err != nil {
		t.Fatalf("NewSSH: %v\nsshd log:\n%s", err, srv.Log())
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, srv, dir
}

func TestSSHSuite(t *testing.T) {
	s, _, dir := newSSH(t)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("working directory not made: %v", err)
	}
	runSuite(t, s, dir)
}

func TestSSHInfo(t *testing.T) {
	s, _, dir := newSSH(t)
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Info = %+v", info)
	if info.OS != runtime.GOOS || info.Arch != runtime.GOARCH || info.Dir != dir {
		t.Errorf("Info = %+v, want %s/%s in %s", info, runtime.GOOS, runtime.GOARCH, dir)
	}
	// Same host, same clock: the true offset is 0, so it must lie within
	// the reported uncertainty (plus date's own start-up), and well
	// under a second.
	if info.ClockUncertainty <= 0 || info.ClockUncertainty > 10*time.Second {
		t.Errorf("ClockUncertainty = %v", info.ClockUncertainty)
	}
	if d := info.ClockOffset.Abs(); d >= time.Second || d > info.ClockUncertainty {
		t.Errorf("ClockOffset = %v ± %v, want |offset| < 1 s and within the uncertainty", info.ClockOffset, info.ClockUncertainty)
	}
}

func TestSSHChecksumMismatch(t *testing.T) {
	s, _, dir := newSSH(t)
	// The hook stands for a transfer that changed the bytes on the way.
	s.corrupt = func(r io.Reader) io.Reader {
		return io.MultiReader(r, strings.NewReader("extra"))
	}
	err := s.WriteFile(context.Background(), "job.json", []byte("original"), 0o644)
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("WriteFile = %v, want ErrChecksum", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != stateDir {
			t.Errorf("left behind after a mismatch: %s", e.Name())
		}
	}
}

func TestSSHRemoveAllDot(t *testing.T) {
	s, _, dir := newSSH(t)
	ctx := context.Background()
	if err := s.WriteFile(ctx, "a/b", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveAll(ctx, "."); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("working dir still there: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(dir)); err != nil {
		t.Errorf("the working dir's parent went too: %v", err)
	}
}

// TestSSHEnvSecret checks that an Env value reaches the program and that
// no process on the host shows it in its command line while the program
// runs (the test shares the host, so it reads every /proc/*/cmdline).
func TestSSHEnvSecret(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc on this host")
	}
	s, _, dir := newSSH(t)
	ctx := context.Background()
	const secret = "s3cr3t-Pa55 'with' $quotes"
	p, err := s.Start(ctx, Command{
		Path:   "/bin/sh",
		Args:   []string{"-c", `printf '%s\n' "$VMBENCH_SECRET" > got; while [ ! -e release ]; do sleep 0.05; done`},
		Env:    []string{"VMBENCH_OTHER=1", "VMBENCH_SECRET=" + secret},
		Output: "out.txt",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Kill(context.Background()) }) // when a check below fails
	got := waitFile(t, filepath.Join(dir, "got"))
	if string(got) != secret+"\n" {
		t.Errorf("program got %q, want the secret", got)
	}
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range cmdlines {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte("s3cr3t")) {
			t.Errorf("%s shows the secret: %q", f, b)
		}
	}
	if err := s.WriteFile(ctx, "release", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := waitEnd(t, p); code != 0 {
		t.Errorf("exit code %d", code)
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "got" {
			return err
		}
		if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("s3cr3t")) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestStartScriptHoldsNoValue(t *testing.T) {
	keys, values, err := splitEnv([]string{"A=s3cret1", "B_2=s3cret2 x"})
	if err != nil {
		t.Fatal(err)
	}
	if values != "s3cret1\ns3cret2 x\n" {
		t.Errorf("values %q", values)
	}
	sc := startScript(startPaths{prog: "/bin/x", dir: "/w", exit: "/w/.s/1.exit"}, []string{"arg"}, keys)
	if strings.Contains(sc, "s3cret") {
		t.Errorf("start script shows a value:\n%s", sc)
	}
	for _, env := range [][]string{{"1A=s3cret"}, {"A-B=s3cret"}, {"s3cret"}, {"A=s3cret\nx"}, {"=s3cret"}} {
		_, _, err := splitEnv(env)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("splitEnv(%q) = %v, want an error not showing the value", env, err)
		}
	}
}

// TestSSHHostKeyRefused checks that a wrong pinned key, a wrong pinned
// fingerprint, an unknown host and a changed known_hosts entry are all
// refused, with the offered key's fingerprint in the error.
func TestSSHHostKeyRefused(t *testing.T) {
	srv := sshtest.Start(t)
	fp := ssh.FingerprintSHA256(srv.HostKey)
	other := sshtest.Start(t) // another server: another host key
	otherLine := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(other.HostKey)))
	tmp := t.TempDir()
	empty := filepath.Join(tmp, "empty_known_hosts")
	changed := filepath.Join(tmp, "changed_known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	line := knownhosts.Line([]string{knownhosts.Normalize(srv.Addr)}, other.HostKey)
	if err := os.WriteFile(changed, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		hostKey    string
		knownHosts string
		want       string
	}{
		{"pinned key", otherLine, "", "not the pinned HostKey"},
		{"pinned fingerprint", ssh.FingerprintSHA256(other.HostKey), "", "not the pinned HostKey"},
		{"unknown host", "", empty, "is unknown"},
		{"changed key", "", changed, "CHANGED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewSSH(context.Background(), SSHConfig{
				Name: "vm1", Addr: srv.Addr, User: srv.User, KeyFile: srv.KeyFile,
				HostKey: tt.hostKey, KnownHosts: tt.knownHosts, Dir: filepath.Join(tmp, "w"),
			})
			if err == nil {
				t.Fatal("NewSSH: no error")
			}
			for _, w := range []string{tt.want, fp, srv.Addr[:strings.LastIndexByte(srv.Addr, ':')], "refused"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	// The right pinned key and fingerprint are accepted.
	for _, hk := range []string{string(ssh.MarshalAuthorizedKey(srv.HostKey)), fp} {
		s, err := NewSSH(context.Background(), SSHConfig{
			Name: "vm1", Addr: srv.Addr, User: srv.User, KeyFile: srv.KeyFile, HostKey: hk, Dir: filepath.Join(tmp, "w"),
		})
		if err != nil {
			t.Errorf("NewSSH with HostKey %q: %v", hk, err)
			continue
		}
		_ = s.Close()
	}
}

func TestSSHConfigCheck(t *testing.T) {
	base := SSHConfig{Name: "vm1", Addr: "h", User: "u", Password: "pw-s3cret", HostKey: "SHA256:x", Dir: "/w"}
	tests := []struct {
		name string
		mod  func(*SSHConfig)
		want string
	}{
		{"no name", func(c *SSHConfig) { c.Name = "" }, "Name"},
		{"no addr", func(c *SSHConfig) { c.Addr = "" }, "Addr"},
		{"no user", func(c *SSHConfig) { c.User = "" }, "User"},
		{"no dir", func(c *SSHConfig) { c.Dir = "" }, "Dir"},
		{"relative dir", func(c *SSHConfig) { c.Dir = "work" }, "SSHConfig.Dir"},
		{"root dir", func(c *SSHConfig) { c.Dir = "/" }, "SSHConfig.Dir"},
		{"root dir unclean", func(c *SSHConfig) { c.Dir = "/a/.." }, "SSHConfig.Dir"},
		{"no auth", func(c *SSHConfig) { c.Password = "" }, "no login method"},
		{"bad key file", func(c *SSHConfig) { c.KeyFile = "/nonexistent/key" }, "KeyFile"},
		{"bad host key", func(c *SSHConfig) { c.HostKey = "ssh-ed25519 notbase64" }, "HostKey"},
		{"missing known_hosts", func(c *SSHConfig) { c.HostKey, c.KnownHosts = "", "/nonexistent/known_hosts" }, "known_hosts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.mod(&c)
			_, err := NewSSH(context.Background(), c)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("NewSSH = %v, want an error naming %q and not showing the password", err, tt.want)
			}
		})
	}
	addr, dir, err := SSHConfig{Name: "n", Addr: "10.0.0.1", User: "u", Dir: "/var/tmp/x/"}.check()
	if err != nil || addr != "10.0.0.1:22" || dir != "/var/tmp/x" {
		t.Errorf("check = %q, %q, %v", addr, dir, err)
	}
	if addr, _, _ := (SSHConfig{Name: "n", Addr: "::1", User: "u", Dir: "/x"}).check(); addr != "[::1]:22" {
		t.Errorf("IPv6 addr = %q", addr)
	}
}

func TestParseDateAndMaps(t *testing.T) {
	tm, extra, err := parseDate("1764628000123456789")
	if err != nil || tm.UnixNano() != 1764628000123456789 || extra != 0 {
		t.Errorf("parseDate ns = %v, %v, %v", tm, extra, err)
	}
	tm, extra, err = parseDate("1764628000N")
	if err != nil || tm.Unix() != 1764628000 || extra != 500*time.Millisecond {
		t.Errorf("parseDate N = %v, %v, %v", tm, extra, err)
	}
	if _, _, err := parseDate("garbage"); err == nil {
		t.Error("parseDate garbage: no error")
	}
	for in, want := range map[string]string{"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i686": "386", "mips": "mips"} {
		if got := goArch(in); got != want {
			t.Errorf("goArch(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"Linux": "linux", "Darwin": "darwin", "FreeBSD": "freebsd", "MINGW64_NT-10.0": "windows"} {
		if got := goOS(in); got != want {
			t.Errorf("goOS(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSSHConcurrent runs more calls at once than maxSessions on one
// connection: each must succeed and read back its own file.
func TestSSHConcurrent(t *testing.T) {
	s, _, _ := newSSH(t)
	ctx := context.Background()
	const n = 3 * maxSessions
	errs := make(chan error, n)
	for i := range n {
		go func() {
			name := "c/" + strconv.Itoa(i)
			data := []byte(strings.Repeat(strconv.Itoa(i), 100))
			if err := s.WriteFile(ctx, name, data, 0o644); err != nil {
				errs <- err
				return
			}
			got, err := s.ReadFile(ctx, name)
			if err == nil && !bytes.Equal(got, data) {
				err = errors.New(name + ": read back other bytes")
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestSSHContextCancel(t *testing.T) {
	s, _, _ := newSSH(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.ReadFile(ctx, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile with a cancelled context = %v, want context.Canceled", err)
	}
	if _, err := s.Info(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Info with a cancelled context = %v, want context.Canceled", err)
	}
}

// TestSSHAgent logs in with the key held by a real ssh-agent.
func TestSSHAgent(t *testing.T) {
	agentBin, err := exec.LookPath("ssh-agent")
	if err != nil {
		t.Skip("no ssh-agent (install openssh-client)")
	}
	addBin, err := exec.LookPath("ssh-add")
	if err != nil {
		t.Skip("no ssh-add (install openssh-client)")
	}
	srv := sshtest.Start(t)
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ag := exec.Command(agentBin, "-D", "-a", sock)
	if err := ag.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ag.Process.Kill(); _ = ag.Wait() })
	t.Setenv("SSH_AUTH_SOCK", sock)
	deadline := time.Now().Add(hangDeadline)
	for {
		out, err := exec.Command(addBin, srv.KeyFile).CombinedOutput()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ssh-add: %v: %s", err, out)
		}
		time.Sleep(20 * time.Millisecond) // the agent's socket is not there yet
	}
	s, err := NewSSH(context.Background(), SSHConfig{
		Name: "vm1", Addr: srv.Addr, User: srv.User, Agent: true,
		KnownHosts: srv.KnownHosts(t), Dir: filepath.Join(t.TempDir(), "w"),
	})
	if err != nil {
		t.Fatalf("NewSSH with the agent: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestSSHConfigStringHidesPassword(t *testing.T) {
	c := SSHConfig{Name: "vm1", Password: "pw-s3cret"}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		if got := fmt.Sprintf(f, c); strings.Contains(got, "s3cret") || !strings.Contains(got, "(set)") {
			t.Errorf("Sprintf(%s) = %q", f, got)
		}
	}
}

// TestSSHDetached checks that a started program goes on after the
// connection that started it is closed.
func TestSSHDetached(t *testing.T) {
	s, srv, dir := newSSH(t)
	ctx := context.Background()
	_, err := s.Start(ctx, Command{
		Path: "/bin/sh",
		Args: []string{"-c", `echo started > started; while [ ! -e release ]; do sleep 0.05; done; echo done > done`},
	})
	if err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(dir, "started"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := NewSSH(ctx, SSHConfig{
		Name: "vm1", Addr: srv.Addr, User: srv.User, KeyFile: srv.KeyFile,
		KnownHosts: srv.KnownHosts(t), Dir: dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if err := s2.WriteFile(ctx, "release", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(dir, "done"))
}
