package vsphere

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnv(t *testing.T) {
	c := ConfigFromEnv(env(map[string]string{
		EnvURL: "vc.example.com", EnvUsername: "admin", EnvPassword: "s3cret!", EnvInsecure: "TRUE",
		EnvDatacenter: "DC1", EnvDatastore: "nvme0, nvme1,,nvme2", EnvResourcePool: "C/Resources",
		EnvFolder: "bench", EnvNetwork: "VM Network", EnvTLSCACerts: "/etc/ca.pem:/etc/ca2.pem", EnvTLSKnownHosts: "/k",
	}))
	if !c.Insecure || c.Datacenter != "DC1" || c.ResourcePool != "C/Resources" || c.Folder != "bench" || c.Network != "VM Network" ||
		c.TLSCACerts != "/etc/ca.pem:/etc/ca2.pem" || c.TLSKnownHosts != "/k" {
		t.Fatalf("%+v", c)
	}
	if got := c.Datastores(); strings.Join(got, "|") != "nvme0|nvme1|nvme2" {
		t.Fatalf("Datastores() = %q", got)
	}
	u, err := c.endpoint()
	if err != nil {
		t.Fatal(err)
	}
	if u.String() != "https://admin:s3cret%21@vc.example.com/sdk" {
		t.Fatalf("endpoint %s", u.Redacted())
	}
	for _, v := range []string{"0", "false", "", "yes"} {
		if ConfigFromEnv(env(map[string]string{EnvInsecure: v})).Insecure {
			t.Errorf("GOVC_INSECURE=%q made Insecure true", v)
		}
	}
}

func TestConfigCredentialsAsGovc(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	userFile := filepath.Join(dir, "user")
	if err := os.WriteFile(userFile, []byte(" user-from-file \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		cfg      Config
		wantUser string
		wantPass string
	}{
		{"userinfo in URL", Config{URL: "https://u1:p1@h/sdk"}, "u1", "p1"},
		{"username overrides URL user, keeps its password", Config{URL: "u1:p1@h", Username: "u2"}, "u2", "p1"},
		{"password overrides URL password", Config{URL: "u1:p1@h", Password: "p2"}, "u1", "p2"},
		{"both override", Config{URL: "h", Username: "u3", Password: "p3"}, "u3", "p3"},
		{"password from a file", Config{URL: "h", Username: "u4", Password: pwFile}, "u4", "from-file"},
		{"both from files", Config{URL: "u1:p1@h", Username: userFile, Password: pwFile}, "user-from-file", "from-file"},
		{"a path that is no file is the value", Config{URL: "h", Username: filepath.Join(dir, "nope"), Password: dir}, filepath.Join(dir, "nope"), dir},
	}
	for _, c := range cases {
		u, err := c.cfg.endpoint()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p, _ := u.User.Password()
		if u.User.Username() != c.wantUser || p != c.wantPass {
			t.Errorf("%s: got %s:%s", c.name, u.User.Username(), p)
		}
	}
}

// A password file that cannot be read is an error naming the flag and the
// variable, without the file's contents.
func TestConfigUnreadablePasswordFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: every file is readable")
	}
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("Hunter2-secret"), 0o000); err != nil {
		t.Fatal(err)
	}
	err := Config{URL: "h", Username: "u", Password: pwFile}.Validate()
	mustContain(t, err, "--password", EnvPassword, "cannot be read")
	if strings.Contains(err.Error(), "Hunter2") {
		t.Errorf("error shows the password: %v", err)
	}
}

func TestConfigValidateNamesFieldAndNeverThePassword(t *testing.T) {
	const secret = "Hunter2-secret"
	cases := []struct {
		cfg  Config
		want []string
	}{
		{Config{}, []string{"URL is missing", "--url", EnvURL}},
		{Config{URL: "vc.example.com", Password: secret}, []string{"username is missing", "--username", EnvUsername}},
		{Config{URL: "https://admin:" + secret + "@vc example.com:bad/"}, []string{"not a valid URL", EnvURL}},
		{Config{URL: "ftp://admin:" + secret + "@vc/"}, []string{`scheme "ftp"`}},
	}
	for _, c := range cases {
		err := c.cfg.Validate()
		mustContain(t, err, c.want...)
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("error shows the password: %v", err)
		}
		if s := c.cfg.String(); strings.Contains(s, secret) {
			t.Errorf("String shows the password: %s", s)
		}
	}
	s := Config{URL: "https://admin:" + secret + "@vc/sdk", Password: secret}.String()
	if strings.Contains(s, secret) || !strings.Contains(s, "admin:xxxxx@vc") || !strings.Contains(s, "password=set") {
		t.Errorf("String() = %s", s)
	}
	if s := (Config{URL: "vc"}).String(); !strings.Contains(s, "url=https://vc/sdk ") {
		t.Errorf("String() = %s", s)
	}
}

func TestConnect(t *testing.T) {
	sim, s := simSession(t, SimOptions{Datastores: 1})
	ctx := context.Background()
	if s.Datacenter.Name() != "DC0" || !s.Client.IsVC() {
		t.Fatalf("datacenter %s, vc %t", s.Datacenter.Name(), s.Client.IsVC())
	}

	cfg := sim.Config()
	u, _ := cfg.endpoint()
	good, _ := u.User.Password()
	if len(good) < 8 {
		t.Fatalf("simulator password %q", good)
	}
	cfg.Password = "wrong-password-123"
	_, err := Connect(ctx, cfg)
	mustContain(t, err, "log in")
	if strings.Contains(err.Error(), good) || strings.Contains(err.Error(), "wrong-password-123") {
		t.Errorf("error shows a password: %v", err)
	}

	// the password from a file, as GOVC_PASSWORD=~/.vcpass
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte(good+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg = sim.Config()
	cfg.URL = strings.Replace(cfg.URL, good, "not-this-one", 1)
	cfg.Password = pwFile
	fromFile, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatalf("password from a file: %v", err)
	}
	_ = fromFile.Close(ctx)

	cfg = sim.Config()
	cfg.Datacenter = "DC9"
	_, err = Connect(ctx, cfg)
	mustContain(t, err, `datacenter`, `"DC9" not found`, "available: DC0")
}
