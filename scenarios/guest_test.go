package scenarios

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vmbench/internal/sshtest"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// TestGuestOverSSH: a real campaign's guests are SSH logins to each VM's
// IP (here a throwaway sshd on 127.0.0.1 stands in for the VM): the agent
// is uploaded and checked, the clock measured, and the working directory
// removed at the end (and nothing else in guest.dir); a host key that is not in known_hosts is refused.
func TestGuestOverSSH(t *testing.T) {
	srv := sshtest.Start(t)
	host, port, err := net.SplitHostPort(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	dir := filepath.Join(t.TempDir(), "guest")
	for _, tc := range []struct {
		name, knownHosts, want string
	}{
		{"known host", srv.KnownHosts(t), ""},
		{"unknown host", filepath.Join(t.TempDir(), "empty"), "guest of vm1: "},
	} {
		if tc.want != "" {
			if err := os.WriteFile(tc.knownHosts, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		precious := filepath.Join(dir, "precious.txt")
		if err := os.WriteFile(precious, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		c := &campaign{id: "x", log: &log, opts: Options{AgentBinary: exe}, env: vcenter{},
			spec: &spec.Campaign{Guest: &spec.Guest{User: srv.User, Port: p, KeyFile: srv.KeyFile, KnownHosts: tc.knownHosts, Dir: dir}}}
		d, err := c.newGuestDriver(context.Background(), []vsphere.VM{{Name: "vm1", IP: host}})
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want an error starting %q", tc.name, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v\nsshd: %s", tc.name, err, srv.Log())
		}
		if !strings.Contains(log.String(), "uploaded to 1 guests, checksums checked") || !dirExists(filepath.Join(dir, "vmbench-x", "bin", "vmbench")) {
			t.Errorf("%s: the agent was not uploaded:\n%s", tc.name, log.String())
		}
		d.Close()
		if dirExists(filepath.Join(dir, "vmbench-x")) || !dirExists(precious) {
			t.Errorf("%s: after Close the campaign's directory in %s must be gone and the rest of guest.dir kept", tc.name, dir)
		}
	}
}

func dirExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
