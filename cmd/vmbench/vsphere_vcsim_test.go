package main

import (
	"strings"
	"testing"

	"vmbench/vsphere"
)

// provision, ls and destroy work on a vcsim named by --url: ls lists the
// campaign's VMs, destroy removes exactly them, and ls then finds none.
func TestVSphereProvisionLsDestroyOnVcsim(t *testing.T) {
	sim, err := vsphere.StartSimulator(t.Context(), vsphere.SimOptions{Datastores: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
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
