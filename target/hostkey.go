package target

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// hostKeyCheck checks a server's host key against a pinned key or
// fingerprint, or against a known_hosts file.
type hostKeyCheck struct {
	name string // target name, for messages
	// pinned key (pinKey) or fingerprint (pinFP), or the known_hosts
	// callback (known) read from file
	pinKey ssh.PublicKey
	pinFP  string
	known  ssh.HostKeyCallback
	file   string
	// err is the last refusal, kept so NewSSH reports it whole rather
	// than inside the handshake's error.
	err error
}

func newHostKeyCheck(cfg SSHConfig, addr string) (*hostKeyCheck, error) {
	h := &hostKeyCheck{name: cfg.Name}
	if hk := strings.TrimSpace(cfg.HostKey); hk != "" {
		if strings.HasPrefix(hk, "SHA256:") {
			h.pinFP = hk
			return h, nil
		}
		key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(hk))
		if err != nil {
			return nil, fmt.Errorf("target %s: SSHConfig.HostKey: %w (want an authorized_keys line such as \"ssh-ed25519 AAAA...\" or a fingerprint \"SHA256:...\")", cfg.Name, err)
		}
		h.pinKey = key
		return h, nil
	}
	h.file = cfg.KnownHosts
	if h.file == "" {
		var err error
		if h.file, err = defaultKnownHosts(); err != nil {
			return nil, fmt.Errorf("target %s: known_hosts: %w; give SSHConfig.KnownHosts or HostKey", cfg.Name, err)
		}
	}
	cb, err := knownhosts.New(h.file)
	if err != nil {
		return nil, fmt.Errorf("target %s: known_hosts file: %w; create it (ssh-keyscan %s >> %s, after checking the key) or pin SSHConfig.HostKey", cfg.Name, err, addr, h.file)
	}
	h.known = cb
	return h, nil
}

// check is the ssh.HostKeyCallback.
func (h *hostKeyCheck) check(host string, remote net.Addr, key ssh.PublicKey) error {
	h.err = h.verify(host, remote, key)
	return h.err
}

func (h *hostKeyCheck) verify(host string, remote net.Addr, key ssh.PublicKey) error {
	fp := ssh.FingerprintSHA256(key)
	switch {
	case h.pinFP != "":
		if fp == h.pinFP {
			return nil
		}
		return fmt.Errorf("target %s: host %s offered %s key %s, not the pinned HostKey %s: refused; if the host's key changed on purpose, pin the new one", h.name, host, key.Type(), fp, h.pinFP)
	case h.pinKey != nil:
		if bytes.Equal(key.Marshal(), h.pinKey.Marshal()) {
			return nil
		}
		return fmt.Errorf("target %s: host %s offered %s key %s, not the pinned HostKey (%s %s): refused; if the host's key changed on purpose, pin the new one", h.name, host, key.Type(), fp, h.pinKey.Type(), ssh.FingerprintSHA256(h.pinKey))
	}
	err := h.known(host, remote, key)
	var ke *knownhosts.KeyError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ke) && len(ke.Want) == 0:
		return fmt.Errorf("target %s: host %s is unknown: %s has no key for it; it offers %s key %s: refused; if that fingerprint is the host's (ask its owner, or run ssh-keygen -lf on its /etc/ssh/ssh_host_*_key.pub), add it to %s (ssh-keyscan, or log in once with ssh) or pin SSHConfig.HostKey", h.name, host, h.file, key.Type(), fp, h.file)
	case errors.As(err, &ke):
		w := ke.Want[0]
		return fmt.Errorf("target %s: host %s key CHANGED: it offers %s key %s but %s:%d has %s %s: refused; if the host was reinstalled and the new fingerprint is right, remove the old entry (ssh-keygen -R %s -f %s) and add the new one", h.name, host, key.Type(), fp, w.Filename, w.Line, w.Key.Type(), ssh.FingerprintSHA256(w.Key), knownhosts.Normalize(host), h.file)
	default:
		return fmt.Errorf("target %s: host %s: %w", h.name, host, err)
	}
}

// algorithms returns the host-key algorithms to ask the server for, so
// that it offers the kind of key that is pinned or known (a server with
// an ed25519 and an RSA key would otherwise offer whichever it prefers).
// nil leaves the library's default.
func (h *hostKeyCheck) algorithms(host string, remote net.Addr) []string {
	var types []string
	switch {
	case h.pinKey != nil:
		types = []string{h.pinKey.Type()}
	case h.known != nil:
		// A key no file can hold returns the known keys in KeyError.Want.
		var ke *knownhosts.KeyError
		if err := h.known(host, remote, probeKey{}); errors.As(err, &ke) {
			for _, w := range ke.Want {
				types = append(types, w.Key.Type())
			}
		}
	}
	var algs []string
	for _, t := range types {
		if t == ssh.KeyAlgoRSA { // RSA keys sign with SHA-2 nowadays
			algs = append(algs, ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256)
		}
		algs = append(algs, t)
	}
	return algs
}

// probeKey is a public key that matches nothing.
type probeKey struct{}

func (probeKey) Type() string                        { return "vmbench-probe" }
func (probeKey) Marshal() []byte                     { return []byte("vmbench-probe") }
func (probeKey) Verify([]byte, *ssh.Signature) error { return errors.New("probe key") }
