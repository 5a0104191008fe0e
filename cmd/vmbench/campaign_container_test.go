package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vmbench/internal/containertest"
	"vmbench/internal/guestimage"
	"vmbench/scenarios/rundir"
)

// The campaigns of --guests container: each VM's guest a container of the
// guest image, its database inside. They skip where docker or the image
// is missing (containertest), and do not run in parallel: vcsim names a
// VM's container after the VM's name and file path, so two campaigns of
// the same VMs at once would clash (and the campaign refuses to start).

// containerCampaign is tinyCampaign named name, driven from driver, its
// database on driver db (mysql or postgres), with extra appended (a
// guest: block).
func containerCampaign(name, driver, db, extra string) string {
	text := strings.Replace(tinyCampaign, "name: tiny", "name: "+name, 1)
	text = strings.Replace(text, "simulate:\n", "simulate:\n  driver: "+driver+"\n", 1)
	if db == "postgres" {
		text = strings.Replace(text, "driver: mysql, port: 3306", "driver: postgres, port: 5432", 1)
	}
	return text + extra
}

// runContainerCampaign runs text with --simulate --guests container,
// fails the test unless it exits 0, and checks what every such campaign
// must show: a TPS for each of the 2 VMs in the review, the image in the
// review's Simulated: line and in run.json, the command that runs it
// again in campaign.yaml, and no container left (none listed as left in
// its manifest either). It returns the log and
// the results directory.
func runContainerCampaign(t *testing.T, name, text string) (stderr, dir string) {
	t.Helper()
	image := containertest.Image(t)
	res := t.TempDir()
	t.Cleanup(func() { noContainerLeft(t) })
	code, stdout, stderr := runCLI(t, map[string]string{guestimage.EnvImage: image},
		"campaign", "run", writeFile(t, name+".yaml", text), "--simulate", "--guests", "container", "--results-dir", res)
	if code != 0 {
		t.Fatalf("campaign run --guests container: exit %d\n%s", code, stderr)
	}
	for _, vm := range []string{"sysbench-01", "sysbench-02"} {
		if tps := reviewTPS(stdout, vm); tps <= 0 {
			t.Errorf("the review has no TPS for %s:\n%s", vm, stdout)
		}
	}
	if want := "each VM's guest a container of docker image " + image; !strings.Contains(stdout, want) {
		t.Errorf("the review's Simulated: line does not say %q:\n%s", want, stdout)
	}
	dirs, _ := filepath.Glob(filepath.Join(res, name+"-*"))
	if len(dirs) != 1 {
		t.Fatalf("results dirs %v", dirs)
	}
	ri, err := rundir.ReadRunInfo(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !ri.Simulated || !strings.Contains(ri.Databases, image) {
		t.Errorf("run.json: simulated %v, databases %q; want the image %s", ri.Simulated, ri.Databases, image)
	}
	if b, err := os.ReadFile(filepath.Join(dirs[0], "campaign.yaml")); err != nil || !strings.Contains(string(b), "--simulate --guests container\n") {
		t.Errorf("campaign.yaml does not give the command that runs it again (%v):\n%s", err, b)
	}
	if !strings.Contains(stderr, "destroyed 2 VMs") {
		t.Errorf("no teardown in the log:\n%s", stderr)
	}
	if left, err := rundir.ReadManifest(dirs[0]); err != nil || len(left) > 0 {
		t.Errorf("the manifest lists as left: %+v (%v); want every VM and container marked removed", left, err)
	}
	return stderr, dirs[0]
}

// reviewTPS is the TPS of vm's row in the review table of stdout (VM,
// datastore, TPS, ...); 0 when there is none.
func reviewTPS(stdout, vm string) float64 {
	for line := range strings.Lines(stdout) {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == vm {
			tps, _ := strconv.ParseFloat(f[2], 64)
			return tps
		}
	}
	return 0
}

// noContainerLeft fails t if a container of a sysbench VM is left (docker
// ps -a --filter name=^vcsim-sysbench-).
func noContainerLeft(t *testing.T) {
	t.Helper()
	left, err := guestimage.Containers(context.Background(), "sysbench-")
	if err != nil {
		t.Error(err)
	}
	if len(left) > 0 {
		t.Errorf("containers left behind: %v", left)
	}
}

// TestContainerGuestsAgentsThroughToolsNoRace: driver guest with --guests
// container: each VM's agent is uploaded into its container through
// guest operations (the default) and drives MariaDB there at 127.0.0.1.
func TestContainerGuestsAgentsThroughToolsNoRace(t *testing.T) {
	stderr, _ := runContainerCampaign(t, "ctools", containerCampaign("ctools", "guest", "mysql", ""))
	for _, want := range []string{"guests reached by VMware Tools guest operations as root", "uploaded to 2 guests, checksums checked",
		"MariaDB", "consistency checks after the run passed on 2 of 2 VMs"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("log lacks %q:\n%s", want, stderr)
		}
	}
}

// TestContainerGuestsHarnessNoRace: driver harness with --guests container:
// this process drives each VM's PostgreSQL at the container's IP, and a
// hook runs in each guest (through guest operations).
func TestContainerGuestsHarnessNoRace(t *testing.T) {
	hook := "hooks:\n  before-run: [\"test -x /usr/local/sbin/guest-init && echo in the guest of $VMBENCH_VM\"]\n"
	stderr, dir := runContainerCampaign(t, "charness", containerCampaign("charness", "harness", "postgres", hook))
	if !strings.Contains(stderr, "postgres 15") || !strings.Contains(stderr, "answers in its guest") {
		t.Errorf("the log does not say each guest's PostgreSQL answered:\n%s", stderr)
	}
	if strings.Contains(stderr, "uploaded to") {
		t.Errorf("driver harness uploaded an agent:\n%s", stderr)
	}
	for _, vm := range []string{"sysbench-01", "sysbench-02"} {
		b, err := os.ReadFile(filepath.Join(dir, "hooks", "before-run", vm+".txt"))
		if err != nil || !strings.Contains(string(b), "in the guest of "+vm+"\n") {
			t.Errorf("%s: the hook did not run in its guest (%v):\n%s", vm, err, b)
		}
	}
}

// TestContainerGuestsAgentsThroughSSHNoRace: driver guest with guest.via: ssh:
// the campaign logs in to each container as root with a key it made,
// each host key read through guest operations first and pinned.
func TestContainerGuestsAgentsThroughSSHNoRace(t *testing.T) {
	stderr, _ := runContainerCampaign(t, "cssh", containerCampaign("cssh", "guest", "mysql", "guest: {via: ssh}\n"))
	if !strings.Contains(stderr, "guests reached by SSH as root") || !strings.Contains(stderr, "host key read through guest operations and pinned") {
		t.Errorf("the log does not say the guests were reached by SSH with pinned host keys:\n%s", stderr)
	}
}

// TestContainerGuestsBadInput: --guests values and combinations that
// cannot run exit 2 before anything is made (none needs docker).
func TestContainerGuestsBadInput(t *testing.T) {
	tiny := writeFile(t, "tiny.yaml", tinyCampaign)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown value", []string{"campaign", "run", tiny, "--simulate", "--guests", "vm"}, `--guests: "vm" is not valid (local: `},
		{"without simulate", []string{"campaign", "run", tiny, "--guests", "container"}, "--guests container: only with --simulate"},
		{"with a database server", []string{"campaign", "run", tiny, "--simulate", "--guests", "container", "--db-dsn", "mysql://root@127.0.0.1:1/"}, "each VM's database is inside its guest"},
		{"pre-built data", []string{"campaign", "run", writeFile(t, "d.yaml", tinyCampaign+"data: {source: prebuilt, dir: "+t.TempDir()+"}\n"), "--simulate", "--guests", "container"},
			"pre-built data sets are not supported with --guests container yet"},
		{"a block suite in VMs", []string{"campaign", "run", writeFile(t, "s.yaml", vmSuiteFile), "--simulate", "--guests", "container"},
			"a block suite in VMs is not supported with --guests container yet"},
		{"SQL Server", []string{"campaign", "run", writeFile(t, "q.yaml", strings.Replace(tinyCampaign, "driver: mysql, port: 3306", "driver: sqlserver, port: 1433", 1)), "--simulate", "--guests", "container"},
			"runs MariaDB (mysql) and PostgreSQL (postgres) only"},
		{"resume", []string{"campaign", "resume", t.TempDir(), "--guests", "nope"}, `--guests: "nope" is not valid`},
		{"review without simulate", []string{"review", "run", "../../scenarios/review-full.yaml", "--guests", "container"}, "--guests container: only with --simulate"},
		{"review with a database server", []string{"review", "run", "../../scenarios/review-full.yaml", "--simulate", "--guests", "container", "--db-dsn", "mysql://root@127.0.0.1:1/"}, "each VM's database is inside its guest"},
		{"review, unknown value", []string{"review", "run", "../../scenarios/review-full.yaml", "--simulate", "--guests", "vm"}, `--guests: "vm" is not valid`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := t.TempDir()
			args := tc.args
			if args[1] == "run" {
				args = append(args, "--results-dir", res)
			}
			code, _, stderr := runCLI(t, nil, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want 2 with %q:\n%s", code, tc.want, stderr)
			}
			if left, _ := filepath.Glob(filepath.Join(res, "*")); len(left) > 0 {
				t.Errorf("left in the results directory: %v", left)
			}
		})
	}
}

// TestContainerGuestsTeardownAfterKillNoRace: a container campaign killed -9
// in its prepare step leaves its VMs' containers running (the simulator
// died with it); its manifest lists them, and `campaign teardown DIR`
// removes them, twice without error, leaving another campaign's
// container of the same VM name alone.
func TestContainerGuestsTeardownAfterKillNoRace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a campaign in a child process")
	}
	image := containertest.Image(t)
	t.Setenv(guestimage.EnvImage, image)
	t.Cleanup(func() { noContainerLeft(t) })
	// Another campaign's container of sysbench-02: a name as vcsim gives
	// it, another campaign's id.
	other := "vcsim-sysbench-02-other"
	ctx := context.Background()
	otherCampaign := func() {
		t.Helper()
		if out, err := exec.CommandContext(ctx, "docker", "create", "--name", other, "--env", guestimage.CampaignEnv+"=b3RoZXI=", image, "true").CombinedOutput(); err != nil {
			t.Fatalf("docker create: %v\n%s", err, out)
		}
	}
	removeOther := func() { _ = exec.Command("docker", "rm", "-f", other).Run() }
	otherCampaign()
	defer removeOther()
	// A campaign of the same VM names is refused while it is there.
	env := map[string]string{guestimage.EnvImage: image}
	code, _, stderr := runCLI(t, env, "campaign", "run", writeFile(t, "ck.yaml", containerCampaign("ck", "harness", "mysql", "")), "--simulate", "--guests", "container", "--results-dir", t.TempDir())
	if code != 2 || !strings.Contains(stderr, other) || !strings.Contains(stderr, "vmbench campaign teardown DIR") {
		t.Fatalf("a campaign beside a container of its VM names: exit %d, want 2 naming %s and the teardown:\n%s", code, other, stderr)
	}
	removeOther()

	res := t.TempDir()
	killAtPrepare(t, "campaign", "run", writeFile(t, "ck.yaml", containerCampaign("ck", "harness", "mysql", "")), "--simulate", "--guests", "container", "--results-dir", res)
	dir := resultsDir(t, res)
	if names := manifestNames(t, dir); len(names["container"]) != 2 {
		t.Fatalf("the manifest lists %v, want the containers of 2 VMs", names)
	}
	left, err := guestimage.Containers(ctx, "sysbench-0")
	if err != nil || len(left) != 2 {
		t.Fatalf("after the kill: containers %v (%v), want the campaign's 2 left running: nothing to test", left, err)
	}
	otherCampaign() // made now: the campaign would have refused it
	teardownTwice(t, dir)
	left, err = guestimage.Containers(ctx, "sysbench-0")
	if err != nil || len(left) != 1 || left[0] != other {
		t.Errorf("after teardown: containers %v (%v), want only %s, another campaign's", left, err, other)
	}
}
