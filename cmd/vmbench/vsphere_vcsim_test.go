package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/vsphere"
)

// startSimulator starts a vcsim with that many datastores, closed when
// the test ends.
func startSimulator(t *testing.T, datastores int) *vsphere.Simulator {
	t.Helper()
	sim, err := vsphere.StartSimulator(t.Context(), vsphere.SimOptions{Datastores: datastores})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return sim
}

// provision, ls and destroy work on a vcsim named by --url: ls lists the
// campaign's VMs, destroy removes exactly them, and ls then finds none.
func TestVSphereProvisionLsDestroyOnVcsim(t *testing.T) {
	sim := startSimulator(t, 2)
	conn := []string{"--url", sim.Config().URL, "-k"}
	vsphereCLI := func(args ...string) (string, string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, nil, append(append([]string{"vsphere"}, args...), conn...)...)
		if code != 0 {
			t.Fatalf("vsphere %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		return stdout, stderr
	}
	vsphereCLI("provision", "--role", "sysbench", "--count", "2", "--template", vsphere.SimTemplate,
		"--ds", "LocalDS_0,LocalDS_1", "--pool", "DC0_C0/Resources", "--campaign", "cli-test", "--power-on=false")
	stdout, _ := vsphereCLI("ls")
	if strings.Count(stdout, "cli-test") != 2 || !strings.HasPrefix(stdout, "CAMPAIGN") {
		t.Errorf("ls lists:\n%s", stdout)
	}
	if stdout, _ := vsphereCLI("destroy", "--campaign", "cli-test"); stdout != "destroyed 2 VM(s) of campaign cli-test\n" {
		t.Errorf("destroy says %q", stdout)
	}
	if _, stderr := vsphereCLI("ls"); stderr != "no vmbench VMs found\n" {
		t.Errorf("ls after destroy says %q", stderr)
	}
}

// The TLS flags and variables reach the connection: the simulator's
// self-signed certificate is refused with a hint, trusted by
// --tls-ca-certs or $GOVC_TLS_CA_CERTS, pinned by --tls-known-hosts; a bad
// file is a usage error naming the flag.
func TestVSphereTLSFlags(t *testing.T) {
	sim := startSimulator(t, 1)
	ca, err := sim.CertificateFile()
	if err != nil {
		t.Fatal(err)
	}
	known := writeFile(t, "known_hosts", sim.KnownHosts())
	url := sim.Config().URL
	cases := []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
		want     []string
	}{
		{"unverified", nil, nil, 1, []string{"not trusted", "--tls-ca-certs", vsphere.EnvTLSCACerts, vsphere.EnvTLSKnownHosts, vsphere.EnvInsecure + "=1"}},
		{"--tls-ca-certs", nil, []string{"--tls-ca-certs", ca}, 0, nil},
		{"GOVC_TLS_CA_CERTS", map[string]string{vsphere.EnvTLSCACerts: ca}, nil, 0, nil},
		{"--tls-known-hosts", nil, []string{"--tls-known-hosts", known}, 0, nil},
		{"GOVC_TLS_KNOWN_HOSTS", map[string]string{vsphere.EnvTLSKnownHosts: known}, nil, 0, nil},
		{"missing CA file", nil, []string{"--tls-ca-certs", ca + ".missing"}, 2, []string{"--tls-ca-certs", vsphere.EnvTLSCACerts, ".missing"}},
		{"missing known_hosts", map[string]string{vsphere.EnvTLSKnownHosts: known + ".missing"}, nil, 2, []string{"--tls-known-hosts", vsphere.EnvTLSKnownHosts}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"vsphere", "ls", "--url", url, "--persist-session=false"}, tc.args...)
			code, _, stderr := runCLI(t, tc.env, args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tc.wantCode, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// The session cache is on by default, as in govc: a second command reuses
// the first one's session from $GOVMOMI_HOME/sessions; --persist-session=false
// and GOVC_PERSIST_SESSION=0 log in every time.
func TestVSpherePersistSession(t *testing.T) {
	sim := startSimulator(t, 1)
	home := t.TempDir()
	env := map[string]string{vsphere.EnvHome: home}
	logins := func(env map[string]string, extra ...string) int64 {
		t.Helper()
		before := sim.Logins()
		code, _, stderr := runCLI(t, env, append([]string{"vsphere", "ls", "--url", sim.Config().URL, "-k"}, extra...)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		return sim.Logins() - before
	}
	if n := logins(env); n != 1 {
		t.Errorf("first ls: %d logins, want 1", n)
	}
	if files, _ := os.ReadDir(filepath.Join(home, "sessions")); len(files) != 1 {
		t.Errorf("%d files in %s/sessions, want 1", len(files), home)
	}
	if n := logins(env); n != 0 {
		t.Errorf("second ls: %d logins, want 0 (the cached session)", n)
	}
	if n := logins(env, "--persist-session=false"); n != 1 {
		t.Errorf("--persist-session=false: %d logins, want 1", n)
	}
	if n := logins(map[string]string{vsphere.EnvHome: home, vsphere.EnvPersistSession: "0"}); n != 1 {
		t.Errorf("%s=0: %d logins, want 1", vsphere.EnvPersistSession, n)
	}
}
