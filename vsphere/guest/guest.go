// Package guest runs programs inside a VM through VMware Tools guest
// operations (the vSphere GuestOperationsManager): it satisfies
// target.Target for a VM found with package vsphere, so a campaign can put
// the vmbench agent in a VM that has no SSH (the Windows SQL Server VMs)
// and read back the files it leaves.
//
// Guest operations have no output stream, no checksum command and no
// clock query, so this package builds them from file transfers: Upload
// reads the file back to compare SHA-256 digests, Start redirects output
// to a file through the guest's shell (sh on Linux, cmd.exe on Windows),
// and Info measures the guest's clock from the modification time of a
// probe file it uploads.
//
// vcsim (govmomi's simulator) runs guest programs only in a VM backed by
// a container (ExtraConfig ContainerKey, vsphere.SimOptions.GuestImage):
// its StartProgramInGuest panics in v0.56.0 without one and deadlocks the
// simulator. A Target opened on another vcsim VM therefore refuses Start
// (and the Windows Kill, which starts taskkill) with an error wrapping
// ErrSimulator, before any request is sent. In a container-backed VM vcsim
// runs the program as `docker exec` on its own host, parsing Arguments
// with the host's shell: Start quotes its one /bin/sh -c script once, so
// the redirections happen in the guest, as VMware Tools does them.
package guest

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"

	"vmbench/target"
)

// EnvGuestLogin is govc's environment variable for guest credentials,
// "user:password" (govc guest.* -l): ParseLogin reads its value.
const EnvGuestLogin = "GOVC_GUEST_LOGIN"

// ErrSimulator is wrapped by Start's and Kill's error on a vcsim VM that
// no container backs: it has no guest to run programs, and asking vcsim
// to crashes it.
var ErrSimulator = errors.New("guest programs cannot run in this vcsim VM (no container backs it, so it has no guest; vcsim's StartProgramInGuest crashes)")

// ErrToolsUnavailable is wrapped by an error when the VM's guest
// operations are unavailable: VMware Tools is not running in it, or the
// VM is off.
var ErrToolsUnavailable = errors.New("VMware Tools guest operations unavailable (Tools not running, or the VM is powered off)")

// Auth is a guest account used for every guest operation.
type Auth struct {
	// User is the guest user name; Password its password (a secret: it
	// never appears in an error or in String).
	User, Password string
}

// String returns the user name with the password masked.
func (a Auth) String() string { return a.User + ":" + strings.Repeat("x", len(a.Password)) }

// ParseLogin splits govc's "user:password" form (the value of
// EnvGuestLogin) at the first colon: the password may contain colons. An
// empty user or a missing or empty password is an error that names
// EnvGuestLogin, never the value.
func ParseLogin(s string) (Auth, error) {
	user, pass, ok := strings.Cut(s, ":")
	switch {
	case user == "":
		return Auth{}, fmt.Errorf("guest login (%s or -l): the user name is empty; want user:password", EnvGuestLogin)
	case !ok || pass == "":
		return Auth{}, fmt.Errorf("guest login (%s or -l) for user %q: the password is empty; want user:password", EnvGuestLogin, user)
	}
	return Auth{User: user, Password: pass}, nil
}

// Config configures New.
type Config struct {
	// Name is the target's name in messages; "" takes the VM's
	// inventory name.
	Name string
	// Auth is the guest account (both fields required).
	Auth Auth
	// Dir is the working directory: an absolute path in the guest's
	// spelling ("/home/bench/vmbench" on Linux, `C:\vmbench` on
	// Windows; forward slashes are accepted there). New creates it and
	// its parents.
	Dir string
}

// Target runs programs in one VM through guest operations. Its methods
// are safe for concurrent use.
type Target struct {
	name string
	ops  ops
	os   string // "linux" or "windows"
	arch string
	dir  string // guest spelling, no trailing separator except a root
	now  func() time.Time
}

var _ target.Target = (*Target)(nil)

// New opens a Target on vm through c: it reads the VM's guest identity to
// learn OS and architecture (guestOS), checks cfg, detects a vcsim
// endpoint, and creates cfg.Dir in the guest. The VM must be powered on
// with VMware Tools running for anything past the directory creation.
func New(ctx context.Context, vm *object.VirtualMachine, c *vim25.Client, cfg Config) (*Target, error) {
	if vm == nil || c == nil {
		return nil, errors.New("guest.New: the VM and the client are required")
	}
	var m mo.VirtualMachine
	props := []string{"name", "config.guestId", "config.guestFullName", "config.extraConfig", "guest.guestId", "guest.guestFamily", "guest.guestFullName", "guest.toolsInstallType"}
	if err := property.DefaultCollector(c).RetrieveOne(ctx, vm.Reference(), props, &m); err != nil {
		return nil, fmt.Errorf("guest: read VM %s: %w", vm.Reference().Value, err)
	}
	if cfg.Name == "" {
		cfg.Name = m.Name
	}
	goos, arch, err := guestOS(identityOf(m))
	if err != nil {
		return nil, fmt.Errorf("guest: VM %s: %w", cfg.Name, err)
	}
	o, err := newRealOps(ctx, c, vm.Reference(), goos, cfg.Auth, containerBacked(m))
	if err != nil {
		return nil, fmt.Errorf("guest: VM %s: %w", cfg.Name, err)
	}
	return open(ctx, o, goos, arch, cfg)
}

// open checks cfg, makes the working directory and returns the Target;
// New and the tests (over the fake) share it.
func open(ctx context.Context, o ops, goos, arch string, cfg Config) (*Target, error) {
	if cfg.Name == "" {
		return nil, errors.New("guest: Config.Name is empty and the VM has no name")
	}
	if cfg.Auth.User == "" || cfg.Auth.Password == "" {
		return nil, fmt.Errorf("guest: VM %s: Config.Auth needs a user and a password (govc's %s=user:password)", cfg.Name, EnvGuestLogin)
	}
	dir, err := cleanDir(goos, cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("guest: VM %s: Config.Dir: %w", cfg.Name, err)
	}
	t := &Target{name: cfg.Name, ops: o, os: goos, arch: arch, dir: dir, now: time.Now}
	if err := o.MakeDirectory(ctx, dir, true); err != nil && !isExist(err) {
		return nil, fmt.Errorf("guest: VM %s: make working directory %s: %w", cfg.Name, dir, err)
	}
	return t, nil
}

// Name returns the target's name: the VM's name unless Config.Name set it.
func (t *Target) Name() string { return t.name }

// Close releases nothing: the vim25 client belongs to the caller. It
// leaves processes and files as they are.
func (t *Target) Close() error { return nil }

// ContainerKey is the ExtraConfig key of a vcsim VM backed by a container
// (govmomi's simulator.ContainerBackingOptionKey): such a VM has a guest
// that runs programs, where vcsim's other VMs have none.
const ContainerKey = "RUN.container"

// containerBacked says m's ExtraConfig names a container (ContainerKey).
func containerBacked(m mo.VirtualMachine) bool {
	if m.Config == nil {
		return false
	}
	for _, o := range m.Config.ExtraConfig {
		if v := o.GetOptionValue(); v != nil && v.Key == ContainerKey {
			return true
		}
	}
	return false
}

// identity is what the VM reports about its guest OS.
type identity struct {
	ConfigID, ConfigFullName       string // from the VM's configuration
	GuestID, GuestFamily, FullName string // reported by VMware Tools
	ToolsInstallType               string
}

func identityOf(m mo.VirtualMachine) identity {
	var id identity
	if m.Config != nil {
		id.ConfigID, id.ConfigFullName = m.Config.GuestId, m.Config.GuestFullName
	}
	if m.Guest != nil {
		id.GuestID, id.GuestFamily, id.FullName = m.Guest.GuestId, m.Guest.GuestFamily, m.Guest.GuestFullName
		id.ToolsInstallType = m.Guest.ToolsInstallType
	}
	return id
}

// guestOS maps a VM's guest identity to GOOS and GOARCH. The OS comes from
// the guest family Tools reports ("windowsGuest", "linuxGuest"; an
// "otherGuestFamily" with an MSI Tools install is Windows, as govc does),
// else from the guest id ("win..." is Windows; ids of Linux
// distributions are Linux). The architecture comes from the guest id:
// ESXi-Arm ids start with "arm-" (arm64); other ids are x86, and an id
// without "64" names a 32-bit guest, which vmbench does not support. An
// id that names neither Windows nor Linux is an error naming it.
func guestOS(id identity) (goos, arch string, err error) {
	gid := id.GuestID
	if gid == "" {
		gid = id.ConfigID
	}
	full := id.FullName
	if full == "" {
		full = id.ConfigFullName
	}
	switch {
	case id.GuestFamily == "windowsGuest",
		id.GuestFamily == "otherGuestFamily" && id.ToolsInstallType == "guestToolsTypeMSI":
		goos = "windows"
	case id.GuestFamily == "linuxGuest":
		goos = "linux"
	case strings.HasPrefix(strings.TrimPrefix(gid, "arm-"), "win"):
		goos = "windows"
	case linuxID.MatchString(strings.TrimPrefix(gid, "arm-")):
		goos = "linux"
	default:
		return "", "", fmt.Errorf("guest OS %q (id %q, family %q) is neither Windows nor Linux", full, gid, id.GuestFamily)
	}
	lower := strings.ToLower(gid + " " + full)
	switch {
	case strings.HasPrefix(gid, "arm-"), strings.Contains(lower, "arm64"), strings.Contains(lower, "aarch64"):
		return goos, "arm64", nil
	case gid == "" || strings.Contains(gid, "64"):
		return goos, "amd64", nil
	}
	return "", "", fmt.Errorf("guest OS %q (id %q) is 32-bit; vmbench runs on amd64 and arm64 guests", full, gid)
}

// linuxID matches vSphere's guest ids of Linux distributions.
var linuxID = regexp.MustCompile(`^(ubuntu|debian|rhel|centos|oracleLinux|sles|suse|opensuse|fedora|otherLinux|other[0-9]+xLinux|asianux|mandrake|mandriva|redhat|turboLinux|coreos|vmwarePhoton|amazonlinux|almalinux|rockylinux|crxPod|crxSys|miraclelinux|pardus|kylinlinux|fusionos|prolinux)`)

// cleanDir checks that dir is absolute in the guest OS's spelling and
// returns it without a trailing separator (a root keeps its own).
func cleanDir(goos, dir string) (string, error) {
	if dir == "" {
		return "", errors.New("empty; want an absolute guest path")
	}
	if strings.ContainsAny(dir, "\x00\n\r") {
		return "", fmt.Errorf("%q contains a control character", dir)
	}
	if goos != "windows" {
		clean := path.Clean(dir)
		if !strings.HasPrefix(dir, "/") || (dir != "/" && clean != strings.TrimSuffix(dir, "/")) {
			return "", fmt.Errorf("%q is not a clean absolute Linux path (like /home/bench/vmbench)", dir)
		}
		return clean, nil
	}
	d := strings.ReplaceAll(dir, "/", `\`)
	if !winAbs.MatchString(d) {
		return "", fmt.Errorf("%q is not an absolute Windows path with a drive letter (like C:\\vmbench)", dir)
	}
	rest := d[3:]
	if strings.ContainsAny(rest, `:*?"<>|%`) {
		return "", fmt.Errorf("%q contains a character Windows paths (or cmd.exe) cannot hold: one of :*?\"<>|%%", dir)
	}
	for _, e := range strings.Split(strings.TrimSuffix(rest, `\`), `\`) {
		if rest != "" && (e == "" || e == "." || e == "..") {
			return "", fmt.Errorf("%q has an empty, \".\" or \"..\" element", dir)
		}
	}
	if len(d) > 3 {
		d = strings.TrimSuffix(d, `\`)
	}
	return d, nil
}

var winAbs = regexp.MustCompile(`^[A-Za-z]:\\`)

// checkRemote enforces target's rules for remote paths: relative,
// slash-separated, clean (no empty, "." or ".." element; "." alone is the
// working directory), no backslash, and on Windows no colon.
func (t *Target) checkRemote(what, p string) error {
	bad := func(why string) error {
		return fmt.Errorf("%s %q: %s: %w", what, p, why, target.ErrBadPath)
	}
	switch {
	case p == "":
		return bad("empty")
	case strings.HasPrefix(p, "/"):
		return bad("absolute; want a slash-separated path relative to the working directory")
	case strings.ContainsAny(p, "\\\x00\n\r"):
		return bad("contains a backslash or a control character; separate elements with /")
	case t.os == "windows" && strings.ContainsRune(p, ':'):
		return bad("contains a colon, which a Windows path element cannot hold")
	case p == ".":
		return nil
	case path.Clean(p) != p:
		return bad("has an empty, \".\" or trailing element")
	case p == ".." || strings.HasPrefix(p, "../"):
		return bad("leaves the working directory")
	}
	return nil
}

// guestPath returns the guest's spelling of a checked remote path.
func (t *Target) guestPath(p string) string {
	if p == "." {
		return t.dir
	}
	if t.os == "windows" {
		return strings.TrimSuffix(t.dir, `\`) + `\` + strings.ReplaceAll(p, "/", `\`)
	}
	return path.Join(t.dir, p)
}

// guestParent returns the guest spelling of the checked remote path's
// parent directory and its base name.
func (t *Target) guestParent(p string) (dir, base string) {
	d, b := path.Split(p)
	if d == "" {
		return t.dir, b
	}
	return t.guestPath(strings.TrimSuffix(d, "/")), b
}
