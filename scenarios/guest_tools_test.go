package scenarios

import (
	"strings"
	"testing"

	"vmbench/scenarios/spec"
)

// TestGuestViaTools: guest.via: tools takes a password login (the file's
// variable or GOVC_GUEST_LOGIN), refuses SSH's keys, and allows a
// Windows working directory; errors name the key and never the password.
func TestGuestViaTools(t *testing.T) {
	env := map[string]string{"PW": "s3cret", "GOVC_GUEST_LOGIN": "admin:pa:ss"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		name      string
		guest     spec.Guest
		user, bad string
	}{
		{"password-env", spec.Guest{Via: spec.GuestViaTools, User: "bench", PasswordEnv: "PW"}, "bench", ""},
		{"govc login", spec.Guest{Via: spec.GuestViaTools}, "admin", ""},
		{"govc login, same user", spec.Guest{Via: spec.GuestViaTools, User: "admin"}, "admin", ""},
		{"other user", spec.Guest{Via: spec.GuestViaTools, User: "bench"}, "", "guest.user bench and GOVC_GUEST_LOGIN's user admin differ"},
		{"empty variable", spec.Guest{Via: spec.GuestViaTools, User: "bench", PasswordEnv: "NONE"}, "", "environment variable NONE is empty"},
	} {
		cf := &spec.Campaign{Guest: &tc.guest}
		a, err := guestLogin(cf, getenv)
		switch {
		case tc.bad == "" && (err != nil || a.User != tc.user):
			t.Errorf("%s: %+v, %v; want user %s", tc.name, a.User, err, tc.user)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.bad)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("%s: the error shows the password: %v", tc.name, err)
		}
	}
	if _, err := guestLogin(&spec.Campaign{Guest: &spec.Guest{Via: spec.GuestViaTools}}, func(string) string { return "" }); err == nil ||
		!strings.Contains(err.Error(), "GOVC_GUEST_LOGIN=user:password") {
		t.Errorf("no login at all: %v", err)
	}
	for _, tc := range []struct{ name, guest, want string }{
		{"tools with a key", "  via: tools\n  key-file: /k\n", "guest.via: tools logs in with guest.user and a password"},
		{"windows dir by ssh", "  user: u\n  dir: 'C:\\vmbench'\n", "is a Windows directory: Windows guests are reached with guest.via: tools"},
		{"bad via", "  via: telnet\n", `guest.via: "telnet" is not valid (ssh: by SSH`},
	} {
		_, err := spec.Parse("c.yaml", []byte(hostileBase+"guest:\n"+tc.guest))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	c := &campaign{id: "x", spec: &spec.Campaign{Guest: &spec.Guest{Via: spec.GuestViaTools, Dir: `C:\vmbench\`}}}
	if got := c.guestDir(); got != `C:\vmbench\vmbench-x` {
		t.Errorf("Windows guest dir %q", got)
	}
}
