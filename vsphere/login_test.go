package vsphere

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vmware/govmomi/vim25/methods"
)

func TestConfigPersistSessionFromEnv(t *testing.T) {
	cases := map[string]bool{"": true, "1": true, "true": true, "TRUE": true, "0": false, "false": false, " False ": false}
	for v, want := range cases {
		c := ConfigFromEnv(env(map[string]string{EnvPersistSession: v, EnvHome: "/h"}))
		if c.PersistSession != want || c.Home != "/h" {
			t.Errorf("%s=%q: PersistSession %t, Home %q; want %t, /h", EnvPersistSession, v, c.PersistSession, c.Home, want)
		}
	}
	if got := (Config{Home: "/h"}).sessionDir(); got != filepath.Join("/h", "sessions") {
		t.Errorf("sessionDir %s", got)
	}
}

// connectCounting connects with cfg and returns the session and how many
// logins the simulator accepted meanwhile.
func connectCounting(t *testing.T, sim *Simulator, cfg Config) (*Session, int64) {
	t.Helper()
	before := sim.Logins()
	s, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return s, sim.Logins() - before
}

// With PersistSession, as govc's GOVC_PERSIST_SESSION, a second Connect
// reuses the first one's session from the cache in Home/sessions without
// logging in; a cached session that vSphere ended is replaced by a new
// login, and a re-login updates the cache. The cached client verifies TLS
// as the first one did.
func TestSessionCache(t *testing.T) {
	ctx := context.Background()
	sim := startSimulator(t)
	cfg := sim.Config()
	cfg.PersistSession = true
	cfg.Home = t.TempDir()
	// verified TLS: a cached session's client gets the CA too
	cfg.Insecure = false
	var err error
	if cfg.TLSCACerts, err = sim.CertificateFile(); err != nil {
		t.Fatal(err)
	}

	s1, n := connectCounting(t, sim, cfg)
	if n != 1 {
		t.Errorf("first Connect: %d logins, want 1", n)
	}
	files, _ := os.ReadDir(filepath.Join(cfg.Home, "sessions"))
	if len(files) != 1 {
		t.Fatalf("%d files in %s/sessions, want 1", len(files), cfg.Home)
	}
	if fi, err := files[0].Info(); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode %v (%v), want 0600", fi.Mode(), err)
	}
	if err := s1.Close(ctx); err != nil {
		t.Fatal(err)
	}

	s2, n := connectCounting(t, sim, cfg)
	if n != 0 {
		t.Errorf("second Connect: %d logins, want 0 (the cached session)", n)
	}
	if _, err := methods.GetCurrentTime(ctx, s2.Client); err != nil {
		t.Fatalf("call on the cached session: %v", err)
	}

	// vSphere ends the session; a call renews it and saves the new one.
	terminate(t, sim, s2)
	before := sim.Logins()
	if _, err := methods.GetCurrentTime(ctx, s2.Client); err != nil {
		t.Fatalf("call after the cached session ended: %v", err)
	}
	if n := sim.Logins() - before; n != 1 {
		t.Errorf("%d logins to renew the session, want 1", n)
	}
	_ = s2.Close(ctx)
	s3, n := connectCounting(t, sim, cfg)
	if n != 0 {
		t.Errorf("Connect after a re-login: %d logins, want 0 (the renewed session)", n)
	}

	// A cached session that ended is replaced at Connect.
	terminate(t, sim, s3)
	_ = s3.Close(ctx)
	s4, n := connectCounting(t, sim, cfg)
	if n != 1 {
		t.Errorf("Connect on an ended cached session: %d logins, want 1", n)
	}
	_ = s4.Close(ctx)

	// Without PersistSession nothing is reused and Close logs out.
	cfg.PersistSession = false
	s5, n := connectCounting(t, sim, cfg)
	if n != 1 {
		t.Errorf("Connect without the cache: %d logins, want 1", n)
	}
	if err := s5.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if files, _ := os.ReadDir(filepath.Join(cfg.Home, "sessions")); len(files) != 1 {
		t.Errorf("%d files in the cache, want still 1", len(files))
	}
}
