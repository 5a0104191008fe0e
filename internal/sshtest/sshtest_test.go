package sshtest

import (
	"bytes"
	"os"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// TestStartAndLogin logs in with the client key, checking the host key
// through the known_hosts file, and runs a command.
func TestStartAndLogin(t *testing.T) {
	srv := Start(t)
	key, err := os.ReadFile(srv.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := knownhosts.New(srv.KnownHosts(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ssh.Dial("tcp", srv.Addr, &ssh.ClientConfig{
		User:            srv.User,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: cb,
	})
	if err != nil {
		t.Fatalf("dial: %v\nsshd log:\n%s", err, srv.Log())
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.Output("echo hello")
	if err != nil || !bytes.Equal(out, []byte("hello\n")) {
		t.Errorf("echo hello = %q, %v", out, err)
	}
}
