package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// SSHConfig says how to reach a host by SSH. Auth takes every method
// given (Signer, then KeyFile, then Agent, then Password); at least one
// is required.
// The host key is always checked, against a pinned HostKey when given,
// else against the KnownHosts file: there is no way to skip the check.
type SSHConfig struct {
	// Name is the target's name in messages: the VM's name. Required.
	Name string
	// Addr is host:port; a bare host means port 22. Required.
	Addr string
	// User is the login name. Required.
	User string
	// KeyFile is the path of a private key (OpenSSH, PEM or PKCS#8
	// format, without a passphrase).
	KeyFile string
	// Signer is a private key held in memory (one made for a single
	// campaign, never written to a file).
	Signer ssh.Signer
	// Agent uses the keys of the agent at $SSH_AUTH_SOCK.
	Agent bool
	// Password is a password the caller read from an environment
	// variable or a file. It is sent to the server only, never printed.
	Password string
	// KnownHosts is the known_hosts file to check the host key against;
	// "" is ~/.ssh/known_hosts. Ignored when HostKey is set.
	KnownHosts string
	// HostKey pins the host key: an authorized_keys-format line
	// ("ssh-ed25519 AAAA... [comment]") or the key's fingerprint as
	// ssh-keygen -l prints it ("SHA256:...").
	HostKey string
	// Dir is the working directory on the host: an absolute slash path
	// other than "/", made with mkdir -p when the target opens.
	Dir string
}

// SSH is a host reached by SSH. One *ssh.Client carries every call, each
// in its own session (at most maxSessions at once); plain POSIX shell
// commands do the work, so the host needs sh, cat, mkdir, mv, rm, chmod,
// uname, date, kill, grep, setsid, nohup and sha256sum (or shasum): a
// Linux host has them all. The login shell must accept sh -c with a
// single-quoted argument spanning lines (sh, bash, dash, zsh and ksh do;
// csh does not). Its methods are safe for concurrent use.
type SSH struct {
	name   string
	dir    string // absolute, clean, not "/"
	client *ssh.Client
	agent  net.Conn      // to the SSH agent, when SSHConfig.Agent
	sem    chan struct{} // one token per open session

	// corrupt, when set, wraps the bytes Upload sends after they are
	// hashed. Only tests set it (to see ErrChecksum); nil in every real
	// SSH.
	corrupt func(io.Reader) io.Reader
}

var _ Target = (*SSH)(nil)

// maxSessions bounds the sessions open at once on one connection (OpenSSH's
// MaxSessions is 10 by default).
const maxSessions = 8

// NewSSH connects, checks the host key, logs in, and makes the working
// directory. A host key that is unknown or differs from the expected one
// is refused with an error naming the host, the key's fingerprint and what
// to do. ctx bounds the connection, the handshake and the first command:
// give it a deadline, or a host that accepts TCP but never answers holds
// NewSSH as long as ctx lives.
func NewSSH(ctx context.Context, cfg SSHConfig) (*SSH, error) {
	addr, dir, err := cfg.check()
	if err != nil {
		return nil, err
	}
	hk, err := newHostKeyCheck(cfg, addr)
	if err != nil {
		return nil, err
	}
	s := &SSH{name: cfg.Name, dir: dir, sem: make(chan struct{}, maxSessions)}
	auth, err := cfg.authMethods(s)
	if err != nil {
		return nil, err
	}
	s.client, err = dial(ctx, addr, &ssh.ClientConfig{User: cfg.User, Auth: auth}, hk)
	if err != nil {
		_ = s.closeAgent()
		return nil, fmt.Errorf("target %s: ssh %s@%s: %w", cfg.Name, cfg.User, addr, err)
	}
	if _, err := s.run(ctx, "mkdir -p -- "+shQuote(dir), nil); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("target %s: make working directory %s: %w", cfg.Name, dir, err)
	}
	return s, nil
}

// String shows cfg with the password replaced by "(set)", so that
// printing a configuration never prints the secret.
func (cfg SSHConfig) String() string {
	pw := ""
	if cfg.Password != "" {
		pw = "(set)"
	}
	key := ""
	if cfg.Signer != nil {
		key = " Signer:" + cfg.Signer.PublicKey().Type()
	}
	return fmt.Sprintf("{Name:%s Addr:%s User:%s KeyFile:%s%s Agent:%t Password:%s KnownHosts:%s HostKey:%s Dir:%s}",
		cfg.Name, cfg.Addr, cfg.User, cfg.KeyFile, key, cfg.Agent, pw, cfg.KnownHosts, cfg.HostKey, cfg.Dir)
}

// GoString is String, for %#v.
func (cfg SSHConfig) GoString() string { return "target.SSHConfig" + cfg.String() }

// check validates cfg and returns the address with its port and the clean
// working directory.
func (cfg SSHConfig) check() (addr, dir string, err error) {
	var missing []string
	for _, f := range []struct{ name, v string }{{"Name", cfg.Name}, {"Addr", cfg.Addr}, {"User", cfg.User}, {"Dir", cfg.Dir}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return "", "", fmt.Errorf("target %s: SSHConfig: %s required", cfg.Name, strings.Join(missing, ", "))
	}
	addr = cfg.Addr
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(strings.Trim(addr, "[]"), "22")
		if _, _, err2 := net.SplitHostPort(addr); err2 != nil {
			return "", "", fmt.Errorf("target %s: SSHConfig.Addr %q: want host or host:port", cfg.Name, cfg.Addr)
		}
	}
	dir = path.Clean(cfg.Dir)
	if !path.IsAbs(dir) || dir == "/" || strings.ContainsAny(dir, "\x00\n") {
		return "", "", fmt.Errorf("target %s: SSHConfig.Dir %q: want an absolute path below / such as /var/tmp/vmbench", cfg.Name, cfg.Dir)
	}
	return addr, dir, nil
}

// authMethods builds the login methods; an agent connection is kept in s
// for Close.
func (cfg SSHConfig) authMethods(s *SSH) ([]ssh.AuthMethod, error) {
	var auth []ssh.AuthMethod
	if cfg.Signer != nil {
		auth = append(auth, ssh.PublicKeys(cfg.Signer))
	}
	if cfg.KeyFile != "" {
		b, err := os.ReadFile(cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("target %s: SSHConfig.KeyFile: %w", cfg.Name, err)
		}
		signer, err := ssh.ParsePrivateKey(b)
		if err != nil {
			return nil, fmt.Errorf("target %s: SSHConfig.KeyFile %s: %w (a key without a passphrase is needed; use Agent for one with)", cfg.Name, cfg.KeyFile, err)
		}
		auth = append(auth, ssh.PublicKeys(signer))
	}
	if cfg.Agent {
		sock := os.Getenv("SSH_AUTH_SOCK")
		if sock == "" {
			return nil, fmt.Errorf("target %s: SSHConfig.Agent: SSH_AUTH_SOCK is not set (start ssh-agent, or give KeyFile)", cfg.Name)
		}
		// The agent is asked for its signers at login; its connection
		// is closed with the target.
		conn, err := net.Dial("unix", sock)
		if err != nil {
			return nil, fmt.Errorf("target %s: SSHConfig.Agent: %w", cfg.Name, err)
		}
		s.agent = conn
		auth = append(auth, ssh.PublicKeysCallback(agent.NewClient(conn).Signers))
	}
	if cfg.Password != "" {
		auth = append(auth, ssh.Password(cfg.Password))
	}
	if len(auth) == 0 {
		return nil, fmt.Errorf("target %s: SSHConfig: no login method; give Signer, KeyFile, Agent or Password", cfg.Name)
	}
	return auth, nil
}

// dial connects with ctx bounding the TCP connection and the handshake.
func dial(ctx context.Context, addr string, cc *ssh.ClientConfig, hk *hostKeyCheck) (*ssh.Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	cc.HostKeyCallback = hk.check
	cc.HostKeyAlgorithms = hk.algorithms(addr, conn.RemoteAddr())
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, cc)
	if !stop() {
		if err == nil {
			_ = c.Close()
		}
		_ = conn.Close()
		return nil, ctx.Err()
	}
	if err != nil {
		_ = conn.Close()
		if hk.err != nil { // the host-key error says what to do; keep it whole
			return nil, hk.err
		}
		return nil, err
	}
	return ssh.NewClient(c, chans, reqs), nil
}

// Name returns SSHConfig.Name.
func (s *SSH) Name() string { return s.name }

// Close closes the connection (and the agent's); processes started keep
// running and files stay.
func (s *SSH) Close() error {
	err := s.client.Close()
	if aerr := s.closeAgent(); err == nil {
		err = aerr
	}
	return err
}

func (s *SSH) closeAgent() error {
	if s.agent == nil {
		return nil
	}
	return s.agent.Close()
}

// remote validates p and returns it as an absolute path on the host.
func (s *SSH) remote(p string) (string, error) {
	if err := checkPath(p); err != nil {
		return "", fmt.Errorf("target %s: %w", s.name, err)
	}
	if p == "." {
		return s.dir, nil
	}
	return s.dir + "/" + p, nil
}

// exitError is a remote command's nonzero exit, with its standard error.
type exitError struct {
	code   int
	stderr string
}

func (e *exitError) Error() string {
	msg := fmt.Sprintf("remote command exited with status %d", e.code)
	if e.stderr != "" {
		msg += ": " + e.stderr
	}
	return msg
}

// run runs script with sh -c in a new session, stdin from in (nil: none),
// and returns its standard output. A nonzero exit is an *exitError. ctx
// ends the session.
func (s *SSH) run(ctx context.Context, script string, in io.Reader) ([]byte, error) {
	var stdout bytes.Buffer
	err := s.runTo(ctx, script, in, &stdout)
	var ee *exitError
	if err != nil && !errors.As(err, &ee) {
		return nil, err
	}
	return stdout.Bytes(), err
}

// runTo is run with the standard output written to stdout.
func (s *SSH) runTo(ctx context.Context, script string, in io.Reader, stdout io.Writer) error {
	sess, release, err := s.session(ctx)
	if err != nil {
		return err
	}
	defer release()
	var stderr bytes.Buffer
	sess.Stdin, sess.Stdout, sess.Stderr = in, stdout, &stderr
	stop := context.AfterFunc(ctx, func() { _ = sess.Close() })
	err = sess.Run("sh -c " + shQuote(script))
	if !stop() {
		return ctx.Err()
	}
	var ee *ssh.ExitError
	if errors.As(err, &ee) {
		return &exitError{code: ee.ExitStatus(), stderr: trimStderr(stderr.String())}
	}
	return err
}

// session opens a session once fewer than maxSessions are open; release
// closes it and frees its place (once, however often it is called).
func (s *SSH) session(ctx context.Context) (sess *ssh.Session, release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	sess, err = s.client.NewSession()
	if err != nil {
		<-s.sem
		return nil, nil, fmt.Errorf("open session: %w", err)
	}
	var once sync.Once
	return sess, func() { once.Do(func() { _ = sess.Close(); <-s.sem }) }, nil
}

// trimStderr keeps the first 500 bytes of a command's error output.
func trimStderr(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return s
}

// exitCode returns err's remote exit status, or -1.
func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return -1
}

// defaultKnownHosts is ~/.ssh/known_hosts.
func defaultKnownHosts() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".ssh", "known_hosts"), nil
}
