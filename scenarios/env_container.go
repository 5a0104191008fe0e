package scenarios

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sync/errgroup"

	"vmbench/dialect"
	"vmbench/internal/guestimage"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/target"
	"vmbench/vsphere"
	"vmbench/vsphere/guest"
)

// containerDBWait bounds the wait for each VM's database server after
// its guest started: the guest image starts MariaDB and PostgreSQL and
// makes the campaign's account in a few seconds.
const containerDBWait = 2 * time.Minute

// containerHostKeyWait bounds the wait for a guest's SSH host key (made
// as the guest starts, before its databases: there by the time they
// answer).
const containerHostKeyWait = 30 * time.Second

// containerPoll is how often a guest that is not ready yet is asked
// again.
const containerPoll = 250 * time.Millisecond

// containerLogin is the guest-operations account of container guests:
// vcsim accepts any non-empty login, and runs the programs as the
// container's user, root.
var containerLogin = guest.Auth{User: "root", Password: "vmbench"}

// hostKeyDir and hostKeyFile are a container guest's ed25519 SSH host key
// (guest-init makes it with ssh-keygen -A), read through guest operations
// and pinned before the campaign logs in by SSH.
const (
	hostKeyDir  = "/etc/ssh"
	hostKeyFile = "ssh_host_ed25519_key.pub"
)

// The guestinfo keys the guest image reads (images/guest/guest-init),
// each value base64-encoded.
const (
	guestInfoSSHKey     = "vmbench.ssh.key"
	guestInfoDBUser     = "vmbench.db.user"
	guestInfoDBPassword = "vmbench.db.password"
)

// container is the environment of --simulate --guests container: the
// in-process vcsim (as simulated starts it, shaped by the file) with
// every VM backed by a container of the guest image (images/guest), whose
// IP is the VM's. Each VM's database (MariaDB for mysql, PostgreSQL for
// postgres) runs in its guest, with an account made for the campaign
// (guestinfo), reached by the harness at the VM's IP and by the agent at
// 127.0.0.1. The guests are opened through VMware Tools guest operations,
// or by SSH with a key made for the campaign (guest.via: ssh), each
// guest's host key read through guest operations first and pinned.
type container struct {
	// sim starts and shapes the simulator and records its block; it has
	// no --db-dsn server.
	sim simulated
	// explicit is Options.GuestImage; image the image check found.
	explicit, image string
	// dbUser and dbPassword are the databases' account, key the SSH key
	// and authorized its authorized_keys line: made by connect, for this
	// campaign only.
	dbUser, dbPassword string
	key                ssh.Signer
	authorized         string
}

// newContainer is the container environment of opts.
func newContainer(opts Options) *container { return &container{explicit: opts.GuestImage} }

func (*container) simulated() bool { return true }

// guestObject is the container vcsim makes for each VM.
func (*container) guestObject() rundir.ObjectKind { return rundir.KindContainer }

// releaseGuests removes the containers of the campaign's VMs names that
// the simulator left (it removes a VM's as it destroys the VM; not those
// of VMs it could not destroy, or kept with --keep-vms, which end with
// it) and marks them removed.
func (*container) releaseGuests(ctx context.Context, c *campaign, names []string) {
	var gone []string
	for _, vm := range names {
		left, err := guestimage.RemoveCampaignContainers(ctx, vm, c.id)
		if err != nil {
			c.logf("removing the container of %s: %v; remove what is left with: vmbench campaign teardown %s", vm, err, c.finalDir())
			continue
		}
		if len(left) > 0 {
			c.logf("removed the container the simulator left for %s: %s", vm, strings.Join(left, ", "))
		}
		gone = append(gone, vm)
	}
	c.removed(rundir.KindContainer, gone, "")
}

// check refuses what container guests do not do (a vSphere of --url, a
// --db-dsn server, a database engine the image lacks, pre-built data
// sets, a block suite in VMs), then finds docker and the guest image
// (guestimage.Find) and refuses containers of the campaign's VM names
// that exist already.
func (e *container) check(cf *spec.Campaign, opts Options) error {
	var errs []error
	if opts.VSphere.URL != "" {
		errs = append(errs, errors.New("--guests container: the guests are containers of the in-process simulator's VMs; --url does not apply"))
	}
	if opts.DBServer != nil {
		errs = append(errs, errors.New("--db-dsn: with --guests container each VM's database is inside its guest; leave --db-dsn out"))
	}
	if d, err := dialect.ParseDriver(cf.Database.Driver); err == nil && d != dialect.MySQL && d != dialect.Postgres {
		errs = append(errs, cf.Origin.Errorf("database.driver", "database.driver: %s: the guest image of --guests container runs MariaDB (mysql) and PostgreSQL (postgres) only", d))
	}
	if cf.Workload.Tool == spec.SuiteTool {
		errs = append(errs, errors.New("--guests container: a block suite in VMs is not supported with --guests container yet; run it with --simulate alone"))
	}
	if cf.Prebuilt() {
		errs = append(errs, cf.Origin.Errorf("data.source", "data.source: prebuilt: pre-built data sets are not supported with --guests container yet; leave data: out (each VM loads its data) or run with --simulate alone"))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	ctx := context.Background() // each docker command is bounded
	image, err := guestimage.Find(ctx, e.explicit, opts.Getenv)
	if err != nil {
		return fmt.Errorf("--guests container: %w", err)
	}
	e.image = image
	return leftContainers(ctx, runSpec(cf, e))
}

// leftContainers refuses containers vcsim would make for cf's VMs that
// exist already: vcsim names each after its VM's name and file path, so
// a campaign of the same VMs that runs, or one that was killed, holds
// the names and the VMs could not power on.
func leftContainers(ctx context.Context, cf *spec.Campaign) error {
	names, err := guestimage.Containers(ctx, cf.VMs.Role+"-")
	if err != nil {
		return fmt.Errorf("--guests container: %w", err)
	}
	vms := vsphere.ProvisionSpec{NamePrefix: cf.VMs.Role, Count: cf.VMs.Count}.VMNames()
	var left []string
	for _, n := range names {
		for _, vm := range vms {
			if strings.HasPrefix(n, "vcsim-"+vm+"-") {
				left = append(left, n)
				break
			}
		}
	}
	if len(left) == 0 {
		return nil
	}
	return fmt.Errorf("--guests container: the containers of VMs %s exist already (%s): a campaign of the same VMs runs now, or one was killed and left them; if none runs, remove them with `vmbench campaign teardown DIR` on the results directory of the campaign that left them, or with: docker rm -f %s",
		strings.Join(vms, ", "), strings.Join(left, ", "), strings.Join(left, " "))
}

// connect makes the campaign's database account and SSH key and starts
// the in-process vcsim with the guest image.
func (e *container) connect(ctx context.Context, c *campaign, _ vsphere.Config) (*vsphere.Session, error) {
	if e.image == "" { // check found it; a caller that skipped check finds it here
		image, err := guestimage.Find(ctx, e.explicit, c.opts.Getenv)
		if err != nil {
			return nil, fmt.Errorf("--guests container: %w", err)
		}
		e.image = image
	}
	if err := e.secrets(); err != nil {
		return nil, err
	}
	sess, err := e.sim.start(ctx, c, e.image)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c.log, "guests: containers of docker image %s, each VM's database inside its own (account %s, made for this campaign)\n", e.image, e.dbUser)
	return sess, nil
}

// secrets makes the campaign's database account (a user and a random
// password, letters and digits only: the guest image refuses quotes and
// backslashes in them) and its SSH key.
func (e *container) secrets() error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("making the campaign's SSH key: %w", err)
	}
	if e.key, err = ssh.NewSignerFromKey(priv); err != nil {
		return fmt.Errorf("making the campaign's SSH key: %w", err)
	}
	e.authorized = strings.TrimSpace(string(ssh.MarshalAuthorizedKey(e.key.PublicKey()))) + " vmbench-campaign"
	e.dbUser = "vmbench_" + strings.ToLower(rand.Text()[:8])
	e.dbPassword = rand.Text()
	return nil
}

// provision shapes the VMs as simulated does, but has each report its
// container's IP, and gives the guests the campaign's account and SSH key
// (guestinfo, base64 as the guest image reads them).
func (e *container) provision(c *campaign, p *vsphere.ProvisionSpec) {
	e.sim.provision(c, p)
	p.SimulatedIP = ""
	b64 := base64.StdEncoding.EncodeToString
	p.GuestInfo = map[string]string{
		guestInfoSSHKey:     b64([]byte(e.authorized)),
		guestInfoDBUser:     b64([]byte(e.dbUser)),
		guestInfoDBPassword: b64([]byte(e.dbPassword)),
		// the campaign's id, by which a teardown tells its containers
		// from another campaign's of the same VM names
		guestimage.CampaignInfoKey: b64([]byte(c.id)),
	}
}

// server is nil: no database is on a server apart from the VMs.
func (*container) server() *dialect.Config { return nil }

func (*container) guestDatabases() bool { return true }

// database is the database: block's database in VM vm's guest, at its
// IP, on the engine's standard port (the image's), as the campaign's
// account.
func (e *container) database(c *campaign, vm vsphere.VM) (dialect.Config, error) {
	d, err := guestDatabase(c.spec, vm)
	if err != nil {
		return d, err
	}
	d.Port, d.User, d.Password = dialect.DefaultConfig(d.Driver).Port, e.dbUser, e.dbPassword
	return d, nil
}

// awaitDatabases waits until every guest's database server answers as
// the campaign's account (made once the server started), each VM at
// most containerDBWait, all at once.
func (e *container) awaitDatabases(ctx context.Context, c *campaign, vms []vsphere.VM, dbs []dialect.Config) error {
	g, gctx := errgroup.WithContext(ctx)
	for i, vm := range vms {
		g.Go(func() error { return awaitDatabase(gctx, c, vm, dbs[i]) })
	}
	return g.Wait()
}

// awaitDatabase asks VM vm's database server db for its version until it
// answers, for at most containerDBWait; the error names the VM, the last
// failure and the guest's container, whose log says what its server did.
func awaitDatabase(ctx context.Context, c *campaign, vm vsphere.VM, db dialect.Config) error {
	admin := db.WithDatabase("") // the campaign's database is made later
	if db.Driver == dialect.Postgres {
		admin.Database = "postgres"
	}
	start := time.Now()
	var version string
	err := poll(ctx, containerDBWait, func() (bool, error) {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		var err error
		version, err = dialect.ServerVersion(actx, admin)
		return err == nil, err
	})
	switch {
	case err == nil:
		c.logf("%s: %s answers in its guest, %.1f s after this step began", vm.Name, version, time.Since(start).Seconds())
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	where := "its container"
	if names, lerr := guestimage.Containers(context.WithoutCancel(ctx), vm.Name+"-"); lerr == nil && len(names) > 0 {
		where = names[0]
	}
	return fmt.Errorf("%s: its database server (%s) did not answer within %s: %w; see what its guest did with: docker logs %s",
		vm.Name, describeDB(db), containerDBWait, err, where)
}

// poll calls try every containerPoll until it says it is done, for at
// most limit, and returns try's last error, or ctx's when ctx ends first.
func poll(ctx context.Context, limit time.Duration, try func() (done bool, err error)) error {
	deadline := time.Now().Add(limit)
	for {
		done, err := try()
		if done || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(containerPoll):
		}
	}
}

// guests opens each guest through VMware Tools guest operations as
// root, or, when the file says guest.via: ssh, by SSH as root with the
// campaign's key, each guest's host key read through guest operations
// and pinned (hostKey). The guest: block's login and key are not used:
// the campaign made its own.
func (e *container) guests(ctx context.Context, c *campaign) (guestOpener, string, error) {
	const clocks = "; their clocks are this host's (containers)"
	if g := c.spec.Guest; g == nil || g.Via != spec.GuestViaSSH {
		open, how := c.toolsGuests(ctx, containerLogin)
		return hostClocks(open), how + " (vcsim takes any login)" + clocks, nil
	}
	open, how := c.sshGuests(ctx, containerLogin.User, func(vm vsphere.VM) (target.SSHConfig, error) {
		hk, err := hostKey(ctx, c, vm)
		if err != nil {
			return target.SSHConfig{}, err
		}
		return target.SSHConfig{Name: vm.Name, Addr: net.JoinHostPort(vm.IP, strconv.Itoa(22)), User: containerLogin.User,
			Signer: e.key, HostKey: hk, Dir: c.guestDir()}, nil
	})
	return hostClocks(open), how + ", with a key made for the campaign; each guest's host key read through guest operations and pinned" + clocks, nil
}

// hostClocks opens the guests as open does, each a hostClock.
func hostClocks(open guestOpener) guestOpener {
	return func(vm vsphere.VM) (target.Target, error) {
		t, err := open(vm)
		if err != nil {
			return nil, err
		}
		return &hostClock{Target: t}, nil
	}
}

// hostClock is a container guest: it runs on this host's kernel, so its
// clock is this host's, and Info reports no offset. (Measured through
// guest operations, vcsim reads a file's time in whole seconds: up to
// half a second of error, which would fail the clock bound and shift
// the agent's common start.) Info asks the guest once: its OS, working
// directory and clock do not change, and each probe costs vcsim four
// docker execs, which the agents' start in the margin before the common
// start can spare.
type hostClock struct {
	target.Target
	mu   sync.Mutex
	info *target.Info
}

// Info is the guest's Info with the clock offset and its uncertainty 0,
// read from the guest at the first call.
func (h *hostClock) Info(ctx context.Context) (target.Info, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.info != nil {
		return *h.info, nil
	}
	info, err := h.Target.Info(ctx)
	if err != nil {
		return info, err
	}
	info.ClockOffset, info.ClockUncertainty = 0, 0
	h.info = &info
	return info, nil
}

// startDelay is StartDelayContainer and StartDelayContainerPerVM for
// agents in the guests, else the margin of drivers in this process.
func (*container) startDelay(guest bool, vms int) time.Duration {
	if guest {
		return StartDelayContainer + time.Duration(vms)*StartDelayContainerPerVM
	}
	return localStartDelay(vms)
}

// hostKey reads VM vm's ed25519 SSH host key through guest operations
// (waiting for it at most containerHostKeyWait) and returns it as an
// authorized_keys line, for target.SSHConfig.HostKey.
func hostKey(ctx context.Context, c *campaign, vm vsphere.VM) (string, error) {
	t, err := c.vc.sess.GuestTarget(ctx, vm.MoRef, guest.Config{Name: vm.Name, Auth: containerLogin, Dir: hostKeyDir})
	if err != nil {
		return "", fmt.Errorf("reading the SSH host key of %s through guest operations: %w", vm.Name, err)
	}
	defer t.Close() // its directory is the guest's /etc/ssh: never removed
	var b []byte
	err = poll(ctx, containerHostKeyWait, func() (bool, error) {
		var err error
		b, err = t.ReadFileMax(ctx, hostKeyFile, 16<<10)
		return !errors.Is(err, fs.ErrNotExist), err // the guest makes it as it starts
	})
	if err != nil {
		return "", fmt.Errorf("reading the SSH host key %s/%s of %s through guest operations: %w", hostKeyDir, hostKeyFile, vm.Name, err)
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey(b)
	if err != nil {
		return "", fmt.Errorf("%s: %s/%s is not an SSH public key: %w", vm.Name, hostKeyDir, hostKeyFile, err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))), nil
}

// login is false: the campaign makes the guests' login itself, and the
// guest: block needs none.
func (*container) login() bool { return false }

// local is false: the guests are containers, their agents processes of
// their own with the container's limits.
func (*container) local() bool { return false }

// recordRun says each VM's guest was a container of the image, with its
// database inside.
func (e *container) recordRun(c *campaign, ri *rundir.RunInfo) {
	ri.Databases = fmt.Sprintf("each VM's guest a container of docker image %s with its %s database inside", e.image, c.spec.Database.Driver)
}

// recordSpec records the simulate: block as simulated does; the header
// names the image and gives the command that runs it again.
func (e *container) recordSpec(c *campaign, r *spec.Campaign) string {
	e.sim.recordSim(c, r)
	return fmt.Sprintf(" (vSphere: %s; guests: containers of docker image %s, each VM's %s database inside its own)", c.vc.where, e.image, c.spec.Database.Driver) +
		rerunNote(c, " --guests "+string(GuestsContainer))
}
