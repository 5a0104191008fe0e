package vsphere

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// reloginTimeout bounds one automatic re-login. The login does not use the
// caller's context (which may end while other callers wait for the same
// login), only its values.
const reloginTimeout = time.Minute

// relogin is a soap.RoundTripper that logs in again, once, when a call
// fails because the session has expired (a NotAuthenticated SOAP fault),
// and then retries that call once. vCenter expires idle sessions (commonly
// after 30 minutes) and the keep-alive stops silently when one of its
// pings fails, so a long campaign must survive an expired session.
//
// Concurrent callers that fail on the same expired session wait for one
// login and then retry: a wave of failures makes one login attempt, and
// when that attempt fails every caller of the wave returns its error. A
// call that fails again after the re-login returns that error: there is no
// loop. The login calls themselves (Login, LoginByToken, Logout...) are
// passed through untouched, so a failing login never triggers a login.
type relogin struct {
	next  soap.RoundTripper
	login func(context.Context) error

	mu sync.Mutex // serializes login attempts
	// attempts counts login attempts (read without mu at the start of a
	// call, written under mu); lastErr is the last attempt's error.
	attempts atomic.Uint64
	lastErr  error
	// done counts successful re-logins (for tests and diagnostics).
	done atomic.Int64
}

// newRelogin wraps next; login logs in with the session's credentials.
// login may call methods through the returned RoundTripper.
func newRelogin(next soap.RoundTripper, login func(context.Context) error) *relogin {
	return &relogin{next: next, login: login}
}

// RoundTrip implements soap.RoundTripper.
func (r *relogin) RoundTrip(ctx context.Context, req, res soap.HasFault) error {
	if isSessionCall(req) {
		return r.next.RoundTrip(ctx, req, res)
	}
	seen := r.attempts.Load()
	err := r.next.RoundTrip(ctx, req, res)
	if err == nil && propertiesNotAuthenticated(res) {
		err = errNotAuthenticatedProperties // as a failed call, below
	} else if err == nil || !isNotAuthenticated(err) {
		return err
	}
	if ctx.Err() != nil {
		return err
	}
	if lerr := r.relogin(ctx, seen); lerr != nil {
		// The login's failure is this error's cause; the expired call's
		// NotAuthenticated is told (why a login was tried), not wrapped,
		// so that the error is not taken for a plain expired session.
		return fmt.Errorf("the vSphere session has expired (%v) and logging in again failed: %w", err, lerr) //nolint:errorlint // see above
	}
	resetBody(res)
	return r.next.RoundTrip(ctx, req, res)
}

// relogin logs in again unless an attempt was made since the failed call
// started (seen attempts), in which case it reports that attempt's result.
func (r *relogin) relogin(ctx context.Context, seen uint64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.attempts.Load() != seen {
		return r.lastErr
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reloginTimeout)
	defer cancel()
	r.lastErr = r.login(lctx)
	r.attempts.Add(1)
	if r.lastErr == nil {
		r.done.Add(1)
	}
	return r.lastErr
}

// isNotAuthenticated reports a NotAuthenticated SOAP fault: the session
// cookie names no live session (expired, terminated or logged out).
func isNotAuthenticated(err error) bool {
	return soap.IsSoapFault(err) && fault.Is(err, &types.NotAuthenticated{})
}

// errNotAuthenticatedProperties stands for a property read that
// propertiesNotAuthenticated found.
var errNotAuthenticatedProperties = errors.New("NotAuthenticated: every property read came back missing")

// propertiesNotAuthenticated reports a property read whose every object
// came back with its properties missing for NotAuthenticated: how vcsim
// (and a server that reads per object) answers RetrieveProperties on an
// expired session, instead of failing the call.
func propertiesNotAuthenticated(res soap.HasFault) bool {
	var objs []types.ObjectContent
	switch b := res.(type) {
	case *methods.RetrievePropertiesExBody:
		if b.Res != nil && b.Res.Returnval != nil {
			objs = b.Res.Returnval.Objects
		}
	case *methods.RetrievePropertiesBody:
		if b.Res != nil {
			objs = b.Res.Returnval
		}
	}
	if len(objs) == 0 {
		return false
	}
	for _, o := range objs {
		if len(o.MissingSet) == 0 {
			return false
		}
		for _, m := range o.MissingSet {
			if _, ok := m.Fault.Fault.(*types.NotAuthenticated); !ok {
				return false
			}
		}
	}
	return true
}

// isSessionCall reports the SessionManager calls that create or end a
// session: they are never retried after a re-login.
func isSessionCall(req soap.HasFault) bool {
	switch req.(type) {
	case *methods.LoginBody, *methods.LoginByTokenBody, *methods.LoginBySSPIBody,
		*methods.LoginExtensionByCertificateBody, *methods.LoginExtensionBySubjectNameBody,
		*methods.CloneSessionBody, *methods.ImpersonateUserBody, *methods.LogoutBody:
		return true
	}
	return false
}

// resetBody zeroes a response body before its call is sent again: the SOAP
// decoder fills only the elements it reads, so a fault left by the first
// try would otherwise fail the second.
func resetBody(res soap.HasFault) {
	if v := reflect.ValueOf(res); v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().CanSet() {
		v.Elem().SetZero()
	}
}
