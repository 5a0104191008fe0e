package scenarios

import (
	"strings"
	"testing"

	"vmbench/scenarios/spec"
)

// TestVMSuiteChecks: what CheckSuite refuses before anything is created,
// beyond the file: driver harness, a real run without guest.user.
func TestVMSuiteChecks(t *testing.T) {
	s, err := spec.ParseSuite("s.yaml", []byte(vmSuiteFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSuite(s, Options{Simulate: true}); err != nil {
		t.Errorf("simulated check: %v", err)
	}
	if err := CheckSuite(s, Options{Simulate: true, Driver: spec.DriverHarness}); err == nil || !strings.Contains(err.Error(), "--driver harness: a block suite in VMs always runs in each VM's guest") {
		t.Errorf("driver harness: %v", err)
	}
	noUser, err := spec.ParseSuite("s.yaml", []byte(strings.Replace(vmSuiteFile, "  user: vmbench\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSuite(noUser, Options{Getenv: func(string) string { return "" }}); err == nil || !strings.Contains(err.Error(), "guest.user") {
		t.Errorf("no guest.user: %v", err)
	}
}

var vmSuiteFile = specFixture("vm-suite.yaml")
