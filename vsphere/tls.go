package vsphere

import (
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vmware/govmomi/vim25/soap"
)

// tlsFilesErrors checks the files named by TLSCACerts (each readable and
// holding at least one PEM certificate) and TLSKnownHosts (each readable),
// and returns one error per bad file, naming its flag and variable. Unlike
// govc, which ignores a known_hosts file that does not exist, a missing
// file is an error: a pin that silently does nothing is a mistake.
func (c Config) tlsFilesErrors() []error {
	var errs []error
	for _, name := range filepath.SplitList(c.TLSCACerts) {
		if err := checkPEMFile(name); err != nil {
			errs = append(errs, fmt.Errorf("TLS CA certificates (--tls-ca-certs / %s): %w; give PEM files separated by %q",
				EnvTLSCACerts, err, string(os.PathListSeparator)))
		}
	}
	for _, name := range filepath.SplitList(c.TLSKnownHosts) {
		if err := checkKnownHostsFile(name); err != nil {
			errs = append(errs, fmt.Errorf("TLS known hosts (--tls-known-hosts / %s): %w; give files of lines \"host[:port] thumbprint\" separated by %q",
				EnvTLSKnownHosts, err, string(os.PathListSeparator)))
		}
	}
	return errs
}

// readListed reads one file of a path list.
func readListed(name string) ([]byte, error) {
	if name == "" {
		return nil, errors.New("empty file name in the list")
	}
	return os.ReadFile(filepath.Clean(name))
}

// checkKnownHostsFile checks a known-hosts file as govc writes it: every
// line that is not blank or a # comment is "host[:port] thumbprint", the
// thumbprint hex byte pairs joined by ':' (SHA-1's 20 bytes or SHA-256's
// 32), and at least one line pins a host.
func checkKnownHostsFile(name string) error {
	b, err := readListed(name)
	if err != nil {
		return err
	}
	pins := 0
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || !isThumbprint(f[1]) {
			return fmt.Errorf("%s:%d: %q is not \"host[:port] thumbprint\" (a SHA-1 or SHA-256 thumbprint, hex pairs joined by ':')", name, i+1, line)
		}
		pins++
	}
	if pins == 0 {
		return fmt.Errorf("%s pins no host", name)
	}
	return nil
}

// isThumbprint reports 20 or 32 hex byte pairs joined by ':'.
func isThumbprint(s string) bool {
	parts := strings.Split(s, ":")
	if len(parts) != 20 && len(parts) != 32 {
		return false
	}
	for _, p := range parts {
		if len(p) != 2 || strings.Trim(strings.ToLower(p), "0123456789abcdef") != "" {
			return false
		}
	}
	return true
}

func checkPEMFile(name string) error {
	b, err := readListed(name)
	if err != nil {
		return err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return fmt.Errorf("%s holds no PEM certificate", name)
	}
	return nil
}

// configureTLS applies TLSCACerts (soap.Client.SetRootCAs: these CAs
// replace the system's) and TLSKnownHosts (soap.Client.LoadThumbprints) to
// sc. It is the configuration func of a session cache login.
func (c Config) configureTLS(sc *soap.Client) error {
	if errs := c.tlsFilesErrors(); len(errs) > 0 {
		return errors.Join(errs...)
	}
	if c.TLSCACerts != "" {
		if err := sc.SetRootCAs(c.TLSCACerts); err != nil {
			return fmt.Errorf("TLS CA certificates (--tls-ca-certs / %s): %w", EnvTLSCACerts, err)
		}
	}
	if err := sc.LoadThumbprints(c.TLSKnownHosts); err != nil {
		return fmt.Errorf("TLS known hosts (--tls-known-hosts / %s): %w", EnvTLSKnownHosts, err)
	}
	return nil
}

// tlsError explains a failed certificate verification (unknown authority,
// a name the certificate does not cover, a pinned thumbprint that does not
// match) and how to fix it; other errors give nil.
func (c Config) tlsError(host string, err error) error {
	switch {
	case err == nil:
		return nil
	case soap.IsCertificateUntrusted(err):
		return fmt.Errorf("connect to %s: the server's TLS certificate is not trusted (%w): trust its CA with --tls-ca-certs or %s=FILE.pem, "+
			"or pin its thumbprint with --tls-known-hosts or %s=FILE (lines \"host thumbprint\", as 'govc about.cert -k -thumbprint' prints), "+
			"or skip verification with -k or %s=1", host, c.redact(err), EnvTLSCACerts, EnvTLSKnownHosts, EnvInsecure)
	case strings.Contains(err.Error(), "thumbprint does not match"): // soap.Client's dialTLSContext
		return fmt.Errorf("connect to %s: the server's certificate is not the one pinned in --tls-known-hosts / %s (%w): "+
			"the certificate was replaced or this is another server; check it, then update the pin", host, EnvTLSKnownHosts, c.redact(err))
	}
	return nil
}
