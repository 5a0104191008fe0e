package scenarios

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"vmbench/scenarios/spec"
	"vmbench/target"
	"vmbench/vsphere"
	"vmbench/vsphere/guest"
)

// sshConfig is how the campaign logs in to vm's guest (guest:).
func (c *campaign) sshConfig(vm vsphere.VM) target.SSHConfig {
	g := c.spec.Guest
	port := g.Port
	if port == 0 {
		port = 22
	}
	cfg := target.SSHConfig{Name: vm.Name, Addr: net.JoinHostPort(vm.IP, strconv.Itoa(port)), User: g.User,
		KeyFile: expandHome(g.KeyFile), Agent: g.Agent, KnownHosts: expandHome(g.KnownHosts), Dir: c.guestDir()}
	if g.PasswordEnv != "" {
		cfg.Password = c.opts.Getenv(g.PasswordEnv)
	}
	return cfg
}

// guestDir is the guests' working directory: vmbench-<campaign id> in
// guest.dir (default /var/tmp). It is new for every campaign and the only
// directory the campaign removes, so guest.dir itself and whatever else
// it holds are never touched. A Windows guest.dir (C:\vmbench, reached
// with guest.via: tools) is joined with a backslash.
func (c *campaign) guestDir() string {
	base, sep := "/var/tmp", "/"
	if g := c.spec.Guest; g != nil && g.Dir != "" {
		base = strings.TrimRight(g.Dir, "/")
		if g.WindowsDir() {
			base, sep = strings.TrimRight(g.Dir, `\/`), `\`
		}
	}
	return base + sep + "vmbench-" + c.id
}

// guestLogin is the guest account of guest.via: tools: guest.user with
// the password in guest.password-env's variable, else govc's
// GOVC_GUEST_LOGIN (user:password). Its errors name the variable, never
// the password.
func guestLogin(cf *spec.Campaign, getenv func(string) string) (guest.Auth, error) {
	g := cf.Guest
	if g.PasswordEnv != "" {
		if p := getenv(g.PasswordEnv); p != "" && g.User != "" {
			return guest.Auth{User: g.User, Password: p}, nil
		}
		return guest.Auth{}, cf.Origin.Errorf("guest.password-env", "guest.password-env: environment variable %s is empty (and guest.user must be set)", g.PasswordEnv)
	}
	a, err := guest.ParseLogin(getenv(guest.EnvGuestLogin))
	if err != nil {
		return guest.Auth{}, cf.Origin.Errorf("guest", "guest.via: tools needs guest.user and guest.password-env, or %s=user:password: %v", guest.EnvGuestLogin, err)
	}
	if g.User != "" && a.User != g.User {
		return guest.Auth{}, cf.Origin.Errorf("guest.user", "guest.user %s and %s's user %s differ; give one", g.User, guest.EnvGuestLogin, a.User)
	}
	return a, nil
}

// expandHome replaces a leading "~/" with the user's home directory.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
