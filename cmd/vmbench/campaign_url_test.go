package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A simulated campaign run against a vcsim given with --url says so: its
// review names that vSphere, not an in-process simulator, and its results'
// campaign.yaml gives a rerun command with the --url (without the
// password) and TLS flags it ran with, which runs the same campaign again.
func TestSimulatedCampaignOnAGivenVSphere(t *testing.T) {
	t.Parallel()
	sim := startSimulator(t, 2)
	res := t.TempDir()
	code, stdout, stderr := runCLI(t, nil, vcsimCampaign(t, sim, res)...)
	if code != 0 {
		t.Fatalf("campaign: exit %d\n%s", code, stderr)
	}
	u, err := url.Parse(sim.Config().URL)
	if err != nil {
		t.Fatal(err)
	}
	where := "imulated: VMs on the vSphere at " + u.Scheme + "://" + u.Host + u.Path + " (given with --url)"
	for _, f := range []string{stdout, readFile(t, filepath.Join(resultsDir(t, res), "report.md"))} {
		if !strings.Contains(f, where) || strings.Contains(f, "in-process") {
			t.Errorf("the review does not name the vSphere given (want %q):\n%s", where, f)
		}
	}

	yaml := readFile(t, filepath.Join(resultsDir(t, res), "campaign.yaml"))
	_, hint, ok := strings.Cut(yaml, "# rerun it with: vmbench ")
	hint, _, _ = strings.Cut(hint, "\n")
	args := strings.Fields(hint)
	if !ok || !strings.Contains(hint, " --url "+u.Scheme+"://") || !strings.Contains(hint, u.Host) || !strings.HasSuffix(hint, " -k") {
		t.Fatalf("campaign.yaml's rerun command lacks the --url and -k the campaign ran with:\n%s", yaml)
	}
	again := t.TempDir()
	env := map[string]string{}
	if p, ok := u.User.Password(); ok {
		env["GOVC_PASSWORD"] = p
	}
	if code, _, stderr := runCLI(t, env, append(args, "--results-dir", again)...); code != 0 {
		t.Fatalf("the rerun command %q: exit %d\n%s", hint, code, stderr)
	}
	if got, want := yamlBody(t, filepath.Join(resultsDir(t, again), "campaign.yaml")), yamlBody(t, filepath.Join(resultsDir(t, res), "campaign.yaml")); got != want {
		t.Errorf("the rerun ran another campaign:\nfirst:\n%s\nrerun:\n%s", want, got)
	}
}

// readFile returns the content of path.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
