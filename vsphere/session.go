package vsphere

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/session/keepalive"
	"github.com/vmware/govmomi/vim25"
)

// keepAliveIdle is how often an idle session is refreshed. vCenter expires
// idle sessions (commonly after 30 minutes) and a campaign sits idle for
// hours while the workloads run; teardown must still find a live session.
const keepAliveIdle = 5 * time.Minute

// Session is a logged-in connection to vCenter or ESXi with a finder scoped
// to one datacenter. Its methods are safe for concurrent use.
type Session struct {
	// Client is the govmomi client, for calls this package does not wrap.
	Client *govmomi.Client
	// Finder resolves inventory paths within Datacenter.
	Finder *find.Finder
	// Datacenter is the datacenter named in Config.Datacenter, or the only one.
	Datacenter *object.Datacenter

	cfg Config
	// relogin is the client's outermost RoundTripper: one automatic
	// re-login when the session has expired.
	relogin *relogin
	// keepalive pings the idle session; Close stops it.
	keepalive *keepalive.HandlerSOAP
	// stop, set by StartSimulatedSession, closes the simulator after the
	// logout (it does so once, however often it is called).
	stop func()
	// parallel bounds the VMs destroyed at once (SetParallel); 0 is
	// DefaultParallel.
	parallel int
}

// SetParallel bounds the vSphere tasks that Destroy, DestroyVMs and
// RemoveVMs keep in flight: at most n VMs are powered off and destroyed
// at once (n <= 0: DefaultParallel, the default). A campaign sets its
// vms.parallel, so that its teardown keeps the bound its provisioning did
// (Provision's own clean-up after a failure uses its spec's Parallel).
// Call it before those methods, not during them.
func (s *Session) SetParallel(n int) { s.parallel = n }

// Connect validates cfg, logs in (username and password resolved as govc
// does; with PersistSession, reusing the cached session when vSphere still
// accepts it), retries temporary network errors up to 3 times, keeps the
// session alive while idle, verifies the server's certificate unless
// Insecure (TLSCACerts, TLSKnownHosts; an untrusted certificate's error
// says how to trust it), logs in again once when a call finds the session
// expired (NotAuthenticated; see relogin), and selects the datacenter.
// Errors never contain the password. A missing datacenter error lists the
// datacenters that exist.
func Connect(ctx context.Context, cfg Config) (*Session, error) {
	u, err := cfg.endpoint()
	if err != nil {
		return nil, err
	}
	vc, cs, err := cfg.login(ctx, u)
	if err != nil {
		return nil, err
	}
	ka := keepalive.NewHandlerSOAP(vim25.Retry(vc.RoundTripper, vim25.RetryTemporaryNetworkError, 3), keepAliveIdle, nil)
	c := &govmomi.Client{Client: vc, SessionManager: session.NewManager(vc)}
	rl := newRelogin(ka, func(ctx context.Context) error {
		if err := c.SessionManager.Login(ctx, u.User); err != nil {
			return cfg.redact(err)
		}
		// The next Connect reuses the new session. A cache that cannot be
		// written costs that Connect a login, not this call.
		_ = cs.Save(vc)
		return nil
	})
	vc.RoundTripper = rl
	ka.Start() // the login happened on the client underneath (session cache)
	s := &Session{Client: c, Finder: find.NewFinder(vc, true), cfg: cfg, relogin: rl, keepalive: ka}
	dc, err := s.Finder.DatacenterOrDefault(ctx, cfg.Datacenter)
	if err != nil {
		err = s.notFound(ctx, "datacenter (--dc / "+EnvDatacenter+")", cfg.Datacenter, err, func() ([]string, error) {
			l, lerr := s.Finder.DatacenterList(ctx, "*")
			return names(l, lerr)
		})
		_ = s.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	s.Datacenter = dc
	s.Finder.SetDatacenter(dc)
	return s, nil
}

// Close stops the keep-alive and logs out, or, with
// Config.PersistSession, leaves the session open for the next Connect (as
// govc does). For a session of StartSimulatedSession it then closes its
// simulator. It uses its own short timeout so it works after ctx is
// cancelled.
func (s *Session) Close(ctx context.Context) error {
	if s == nil || s.Client == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var err error
	if !s.cfg.PersistSession {
		err = s.cfg.redact(s.Client.Logout(ctx))
	}
	if s.keepalive != nil {
		s.keepalive.Stop()
	}
	if s.stop != nil {
		s.stop()
	}
	return err
}

// Config returns the configuration the session was opened with.
func (s *Session) Config() Config { return s.cfg }

// notFound turns a finder miss into an error naming what was asked for and
// what exists (list is called only on a miss). Other errors pass through.
func (s *Session) notFound(ctx context.Context, what, asked string, err error, list func() ([]string, error)) error {
	var nf *find.NotFoundError
	var df *find.DefaultNotFoundError
	var mf *find.MultipleFoundError
	var dm *find.DefaultMultipleFoundError
	if asked == "" {
		asked = "(default)"
	}
	switch {
	case errors.As(err, &nf), errors.As(err, &df):
		if ctx.Err() == nil && list != nil {
			if avail, lerr := list(); lerr == nil {
				return fmt.Errorf("%s %q not found; available: %s: %w", what, asked, listOrNone(avail), err)
			}
		}
		return fmt.Errorf("%s %q not found: %w", what, asked, err)
	case errors.As(err, &mf), errors.As(err, &dm):
		if ctx.Err() == nil && list != nil {
			if avail, lerr := list(); lerr == nil {
				return fmt.Errorf("%s %q matches more than one object, name one of: %s: %w", what, asked, listOrNone(avail), err)
			}
		}
		return fmt.Errorf("%s %q matches more than one object: %w", what, asked, err)
	}
	return fmt.Errorf("%s %q: %w", what, asked, s.cfg.redact(err))
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	const most = 20
	if len(l) > most {
		return strings.Join(l[:most], ", ") + fmt.Sprintf(" and %d more", len(l)-most)
	}
	return strings.Join(l, ", ")
}

type named interface{ Name() string }

func names[T named](l []T, err error) ([]string, error) {
	var nf *find.NotFoundError
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l))
	for _, o := range l {
		out = append(out, o.Name())
	}
	sort.Strings(out)
	return out, nil
}
