package vsphere

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/session/cache"
	"github.com/vmware/govmomi/vim25"
)

// sessionDir is where the session cache keeps its files: Home/sessions,
// by default ~/.govmomi/sessions as in govc. Empty when there is no home
// directory (govmomi's cache then picks its own default).
func (c Config) sessionDir() string {
	home := c.Home
	if home == "" {
		dir, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = filepath.Join(dir, ".govmomi")
	}
	return filepath.Join(home, "sessions")
}

// login returns a client logged in to u (TLS set up by configureTLS): the
// cached session when PersistSession is on and vSphere still accepts it,
// else a new login (saved to the cache when PersistSession is on). The
// cache.Session it returns saves later re-logins too. Errors say whether
// the connection, the TLS verification or the login failed, never with
// the password.
func (c Config) login(ctx context.Context, u *url.URL) (*vim25.Client, *cache.Session, error) {
	cs := &cache.Session{URL: u, Insecure: c.Insecure, Passthrough: !c.PersistSession, DirSOAP: c.sessionDir()}
	var loginErr error
	cs.LoginSOAP = func(ctx context.Context, vc *vim25.Client) error {
		loginErr = session.NewManager(vc).Login(ctx, u.User)
		return loginErr
	}
	vc := new(vim25.Client)
	err := cs.Login(ctx, vc, c.configureTLS)
	switch {
	case err == nil:
		return vc, cs, nil
	case loginErr != nil:
		return nil, nil, fmt.Errorf("log in to %s as %s: %w", u.Host, u.User.Username(), c.redact(err))
	}
	if terr := c.tlsError(u.Host, err); terr != nil {
		return nil, nil, terr
	}
	if c.PersistSession {
		return nil, nil, fmt.Errorf("connect to %s (session cache in %s; --persist-session=false or %s=0 bypasses it): %w",
			u.Host, cs.DirSOAP, EnvPersistSession, c.redact(err))
	}
	return nil, nil, fmt.Errorf("connect to %s: %w", u.Host, c.redact(err))
}
