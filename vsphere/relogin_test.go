package vsphere

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// fakeVC is a soap.RoundTripper standing for vCenter: calls other than
// Login fail with NotAuthenticated until a Login succeeds. Like
// soap.Client, it reports a fault left in the response body as an error.
type fakeVC struct {
	mu       sync.Mutex
	authed   bool
	logins   int
	loginErr error // Login's result when set
	// wave, when set, holds every failing call until wave.Done has been
	// called by as many calls as it was set up for: they all fail on the
	// same expired session before anyone logs in again.
	wave *sync.WaitGroup
}

func notAuthenticated() error {
	f := &soap.Fault{Code: "ServerFaultCode", String: "The session is not authenticated."}
	f.Detail.Fault = types.NotAuthenticated{}
	return soap.WrapSoapFault(f)
}

func (f *fakeVC) RoundTrip(_ context.Context, req, res soap.HasFault) error {
	f.mu.Lock()
	if _, ok := req.(*methods.LoginBody); ok {
		f.logins++
		if f.loginErr != nil {
			f.mu.Unlock()
			return f.loginErr
		}
		f.authed = true
		f.mu.Unlock()
		res.(*methods.LoginBody).Res = &types.LoginResponse{}
		return nil
	}
	authed, wave := f.authed, f.wave
	f.mu.Unlock()
	if !authed {
		if wave != nil {
			wave.Done()
			wave.Wait()
		}
		// as soap.Client does: the decoded fault stays in the body
		body := res.(*methods.CurrentTimeBody)
		body.Fault_ = soap.ToSoapFault(notAuthenticated())
		return soap.WrapSoapFault(body.Fault_)
	}
	body := res.(*methods.CurrentTimeBody)
	body.Res = &types.CurrentTimeResponse{Returnval: time.Unix(1, 0)}
	if body.Fault() != nil {
		return soap.WrapSoapFault(body.Fault())
	}
	return nil
}

func (f *fakeVC) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.logins
}

// fakeRelogin wraps vc; its login goes through the wrapper itself, as
// SessionManager.Login does in Connect.
func fakeRelogin(vc *fakeVC) *relogin {
	var r *relogin
	r = newRelogin(vc, func(ctx context.Context) error {
		_, err := methods.Login(ctx, r, &types.Login{UserName: "u", Password: "p"})
		return err
	})
	return r
}

// callTogether makes n GetCurrentTime calls through r at once and returns
// their errors.
func callTogether(r *relogin, n int) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, errs[i] = methods.GetCurrentTime(context.Background(), r) })
	}
	wg.Wait()
	return errs
}

// Callers that fail together on an expired session make one login between
// them, then all succeed.
func TestReloginOnceForConcurrentCallers(t *testing.T) {
	const callers = 8
	vc := &fakeVC{wave: new(sync.WaitGroup)}
	vc.wave.Add(callers)
	r := fakeRelogin(vc)
	for _, err := range callTogether(r, callers) {
		if err != nil {
			t.Errorf("call after re-login: %v", err)
		}
	}
	if n := vc.count(); n != 1 {
		t.Errorf("%d logins for %d callers on one expired session, want 1", n, callers)
	}
	if n := r.done.Load(); n != 1 {
		t.Errorf("done = %d, want 1", n)
	}
}

// A failing login is not retried by the callers of its wave: they return
// its error, which says what happened. A later call tries again.
func TestReloginFailedLoginIsReturnedOnce(t *testing.T) {
	const callers = 4
	vc := &fakeVC{wave: new(sync.WaitGroup), loginErr: errors.New("ServerFaultCode: Cannot complete login due to an incorrect user name or password.")} //nolint:revive // vCenter's message as it is
	vc.wave.Add(callers)
	r := fakeRelogin(vc)
	for _, err := range callTogether(r, callers) {
		mustContain(t, err, "session has expired", "logging in again failed", "incorrect user name or password")
	}
	if n := vc.count(); n != 1 {
		t.Errorf("%d login attempts for one wave, want 1", n)
	}

	vc.mu.Lock()
	vc.wave, vc.loginErr = nil, nil
	vc.mu.Unlock()
	if _, err := methods.GetCurrentTime(context.Background(), r); err != nil {
		t.Fatalf("later call: %v", err)
	}
	if n := vc.count(); n != 2 {
		t.Errorf("%d login attempts after a later call, want 2", n)
	}
}

// Login's own NotAuthenticated is returned as is: no login for a login.
func TestReloginNeverForLogin(t *testing.T) {
	vc := &fakeVC{loginErr: notAuthenticated()}
	r := fakeRelogin(vc)
	_, err := methods.Login(context.Background(), r, &types.Login{UserName: "u", Password: "p"})
	if !isNotAuthenticated(err) {
		t.Fatalf("Login error %v, want NotAuthenticated", err)
	}
	if n := vc.count(); n != 1 || r.done.Load() != 0 {
		t.Errorf("%d logins, %d re-logins: want 1 and 0", n, r.done.Load())
	}
}

// terminate ends s's vCenter session from a second session, as an idle
// timeout or an administrator would.
func terminate(t *testing.T, sim *Simulator, s *Session) {
	t.Helper()
	ctx := context.Background()
	us, err := s.Client.SessionManager.UserSession(ctx)
	if err != nil || us == nil {
		t.Fatalf("UserSession: %v %v", us, err)
	}
	admin, err := Connect(ctx, sim.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close(ctx) }()
	if err := admin.Client.SessionManager.TerminateSession(ctx, []string{us.Key}); err != nil {
		t.Fatalf("TerminateSession: %v", err)
	}
}

// A session that expires in the middle of work is renewed by exactly one
// login and the call that found it expired succeeds; a call that still
// fails after the new login returns its error instead of looping.
func TestSessionExpiryMidWork(t *testing.T) {
	sim, s := simSession(t, SimOptions{Datastores: 1})
	ctx := context.Background()
	tmpl, err := s.Finder.VirtualMachine(ctx, SimTemplate)
	if err != nil {
		t.Fatal(err)
	}

	terminate(t, sim, s)
	before := sim.Logins()
	if _, err := methods.GetCurrentTime(ctx, s.Client); err != nil {
		t.Fatalf("call after the session expired: %v", err)
	}
	// a task, then the property collector that waits for it
	task, err := tmpl.Reconfigure(ctx, types.VirtualMachineConfigSpec{Annotation: "after expiry"})
	if err != nil {
		t.Fatalf("Reconfigure: %v", err)
	}
	if err := task.Wait(ctx); err != nil {
		t.Fatalf("task: %v", err)
	}
	if n := sim.Logins() - before; n != 1 {
		t.Errorf("%d logins after the session expired, want 1", n)
	}
	if n := s.relogin.done.Load(); n != 1 {
		t.Errorf("%d re-logins, want 1", n)
	}

	// Expired again, and every CurrentTime now fails NotAuthenticated.
	terminate(t, sim, s)
	svc := sim.model.Service
	svc.AddFaultRule(&simulator.FaultInjectionRule{MethodName: "CurrentTime", ObjectType: "*", ObjectName: "*",
		Probability: 1, FaultType: simulator.FaultTypeNotAuthenticated, Enabled: true})
	t.Cleanup(svc.ClearFaultRules)
	before = sim.Logins()
	_, err = methods.GetCurrentTime(ctx, s.Client)
	if !fault.Is(err, &types.NotAuthenticated{}) {
		t.Fatalf("persistent NotAuthenticated: got %v", err)
	}
	if n := sim.Logins() - before; n != 1 {
		t.Errorf("%d logins for a persistent failure, want 1 (no loop)", n)
	}
	u, _ := sim.Config().endpoint()
	if pw, _ := u.User.Password(); strings.Contains(err.Error(), pw) {
		t.Errorf("error shows the password: %v", err)
	}
}
