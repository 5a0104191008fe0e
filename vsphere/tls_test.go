package vsphere

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The simulator's self-signed certificate is refused unless trusted: by a
// CA file, a known_hosts pin or Insecure; each refusal says how to fix it,
// and a bad file names its flag and variable before any connection.
func TestConnectVerifiesTLS(t *testing.T) {
	sim := startSimulator(t)
	ca, err := sim.CertificateFile()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	known := write("known_hosts", "# pins\nvc.example.com "+strings.Repeat("AB:", 19)+"AB\n"+sim.KnownHosts())
	garbage := write("garbage_hosts", "just garbage\n")
	wrongPin := write("wrong_hosts", strings.Fields(sim.KnownHosts())[0]+" "+strings.Repeat("AA:", 31)+"AA\n")
	notPEM := write("not.pem", "hello\n")
	missing := filepath.Join(dir, "missing.pem")
	list := func(p ...string) string { return strings.Join(p, string(os.PathListSeparator)) }

	cases := []struct {
		name string
		set  func(*Config)
		want []string // error parts; none: connects
	}{
		{"no CA, verified", func(*Config) {}, []string{"not trusted", "--tls-ca-certs", EnvTLSCACerts, EnvTLSKnownHosts, EnvInsecure + "=1"}},
		{"insecure", func(c *Config) { c.Insecure = true }, nil},
		{"server's certificate as CA", func(c *Config) { c.TLSCACerts = ca }, nil},
		{"CA list", func(c *Config) { c.TLSCACerts = list(ca, ca) }, nil},
		{"known_hosts pin", func(c *Config) { c.TLSKnownHosts = known }, nil},
		{"wrong pin", func(c *Config) { c.TLSKnownHosts = wrongPin }, []string{"not the one pinned", "--tls-known-hosts", EnvTLSKnownHosts, "thumbprint does not match"}},
		{"missing CA file", func(c *Config) { c.TLSCACerts = list(ca, missing) }, []string{"--tls-ca-certs", EnvTLSCACerts, "missing.pem", "no such file"}},
		{"CA file without a certificate", func(c *Config) { c.TLSCACerts = notPEM }, []string{"--tls-ca-certs", EnvTLSCACerts, "no PEM certificate"}},
		{"missing known_hosts", func(c *Config) { c.TLSKnownHosts = missing }, []string{"--tls-known-hosts", EnvTLSKnownHosts, "no such file"}},
		{"garbage known_hosts", func(c *Config) { c.TLSKnownHosts = garbage }, []string{"--tls-known-hosts", "garbage_hosts:1", `is not "host[:port] thumbprint"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.Config()
			cfg.Insecure = false
			tc.set(&cfg)
			s, err := Connect(context.Background(), cfg)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				_ = s.Close(context.Background())
				return
			}
			mustContain(t, err, tc.want...)
			if strings.Contains(tc.name, "missing") || strings.Contains(tc.name, "without") || strings.Contains(tc.name, "garbage") {
				mustContain(t, cfg.Validate(), tc.want...)
			}
		})
	}
}
