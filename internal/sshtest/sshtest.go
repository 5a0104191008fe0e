// Package sshtest starts a throwaway OpenSSH server on 127.0.0.1 for
// integration tests: fresh ed25519 host and client keys in a temp dir, a
// free port, its own sshd_config (no PAM, public-key login only for the
// authorized_keys file beside it), so the machine's own sshd and its
// configuration are never touched.
//
//	srv := sshtest.Start(t) // skips when no sshd exists
//	// dial srv.Addr as srv.User with the key in srv.KeyFile; check the
//	// host key against srv.HostKey or the file srv.KnownHosts(t) writes
//
// The server runs as the test's user and logs in only that user (root
// when the tests run as root, as in CI). sshd is found at $VMBENCH_SSHD,
// on PATH, or in /usr/sbin and /usr/local/sbin.
package sshtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// EnvSSHD names an environment variable that, when set, is the path of the
// sshd binary to use.
const EnvSSHD = "VMBENCH_SSHD"

// startTimeout bounds sshd's start until its port accepts connections
// (normally a few milliseconds).
const startTimeout = 30 * time.Second

// Server is one running sshd.
type Server struct {
	// Addr is host:port on 127.0.0.1.
	Addr string
	// User is the login name (the test process's user).
	User string
	// KeyFile is the path of the client's private key (OpenSSH format,
	// no passphrase) that the server accepts.
	KeyFile string
	// HostKey is the server's public host key.
	HostKey ssh.PublicKey
	// Dir is the temp dir holding the keys, the configuration and the
	// log.
	Dir string

	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	log  bytes.Buffer
}

// FindSSHD returns the sshd binary's absolute path (sshd re-executes
// itself and needs one), or "" when there is none.
func FindSSHD() string {
	if p := os.Getenv(EnvSSHD); p != "" {
		return p
	}
	if p, err := exec.LookPath("sshd"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	for _, d := range []string{"/usr/sbin", "/usr/local/sbin"} {
		p := filepath.Join(d, "sshd")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// Start starts an sshd for t and stops it at t's cleanup. It skips t when
// no sshd exists and fails it when sshd does not start.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := FindSSHD()
	if bin == "" {
		t.Skip("internal/sshtest: no sshd found (/usr/sbin/sshd); install openssh-server (make test does this when run as root)")
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("internal/sshtest: current user: %v", err)
	}
	if os.Geteuid() == 0 {
		// sshd running as root needs its privilege-separation directory.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("internal/sshtest: %v", err)
		}
	}
	s := &Server{User: u.Username, Dir: t.TempDir()}
	if err := s.writeKeys(); err != nil {
		t.Fatalf("internal/sshtest: %v", err)
	}
	// A free port can be taken between the probe and sshd's bind: retry.
	for attempt := 1; ; attempt++ {
		err = s.start(bin)
		if err == nil {
			break
		}
		if attempt == 3 {
			t.Fatalf("internal/sshtest: %v", err)
		}
	}
	t.Cleanup(s.stop)
	return s
}

// KnownHosts writes a known_hosts file naming this server's key and
// returns its path.
func (s *Server) KnownHosts(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(s.Addr)}, s.HostKey) + "\n"
	if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Log returns what sshd has written to its standard error so far.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// Write appends sshd's log output (it is the process's stderr).
func (s *Server) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.Write(p)
}

func (s *Server) writeKeys() error {
	hostPub, err := writeKey(filepath.Join(s.Dir, "host_ed25519_key"))
	if err != nil {
		return err
	}
	if s.HostKey, err = ssh.NewPublicKey(hostPub); err != nil {
		return err
	}
	s.KeyFile = filepath.Join(s.Dir, "client_ed25519_key")
	clientPub, err := writeKey(s.KeyFile)
	if err != nil {
		return err
	}
	pub, err := ssh.NewPublicKey(clientPub)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.Dir, "authorized_keys"), ssh.MarshalAuthorizedKey(pub), 0o600)
}

// writeKey writes a fresh ed25519 private key to path in OpenSSH format.
func writeKey(path string) (ed25519.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		return nil, err
	}
	return pub, os.WriteFile(path, pem.EncodeToMemory(block), 0o600)
}

// config is the sshd_config; %[1]s is the temp dir, %[2]d the port.
const config = `ListenAddress 127.0.0.1:%[2]d
HostKey %[1]s/host_ed25519_key
AuthorizedKeysFile %[1]s/authorized_keys
PidFile %[1]s/sshd.pid
StrictModes no
UsePAM no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
PermitUserEnvironment no
AllowTcpForwarding no
X11Forwarding no
PrintMotd no
MaxSessions 32
MaxStartups 32
LogLevel INFO
`

func (s *Server) start(bin string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cfg := filepath.Join(s.Dir, "sshd_config")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, config, s.Dir, port), 0o600); err != nil {
		return err
	}
	s.mu.Lock()
	s.log.Reset()
	s.mu.Unlock()
	cmd := exec.Command(bin, "-D", "-e", "-f", cfg)
	cmd.Stdout, cmd.Stderr = s, s
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", bin, err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(startTimeout)
	for {
		c, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			_ = c.Close()
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("%s exited before accepting connections on %s: %s", bin, s.Addr, s.Log())
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return fmt.Errorf("%s not accepting connections on %s after %v: %s", bin, s.Addr, startTimeout, s.Log())
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not timing logic
	}
}

// stop sends SIGTERM and waits; SIGKILL after 10 s.
func (s *Server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	a, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("listener address is not TCP")
	}
	return a.Port, nil
}
