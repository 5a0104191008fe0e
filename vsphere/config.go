// Package vsphere provisions, inspects and removes the benchmark VMs of a
// vmbench campaign on vCenter or ESXi through govmomi (v0.56.0), and runs an
// in-process vcsim inventory to try all of it without a vSphere installation.
//
// Units: sizes named ...GB are binary gigabytes (GiB, 2^30 bytes), as the
// vSphere Client shows them; memory named ...MB is MiB, as VirtualMachine
// config.hardware.memoryMB is.
//
// The package imports nothing else from the vmbench module.
package vsphere

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/vim25/soap"
)

// govc's environment variables (cli/flags/client.go, datacenter.go,
// datastore.go, resource_pool.go, folder.go, network.go in govmomi v0.56.0).
const (
	EnvURL           = "GOVC_URL"
	EnvUsername      = "GOVC_USERNAME"
	EnvPassword      = "GOVC_PASSWORD"
	EnvInsecure      = "GOVC_INSECURE"
	EnvTLSCACerts    = "GOVC_TLS_CA_CERTS"
	EnvTLSKnownHosts = "GOVC_TLS_KNOWN_HOSTS"
	EnvDatacenter    = "GOVC_DATACENTER"
	EnvDatastore     = "GOVC_DATASTORE"
	EnvResourcePool  = "GOVC_RESOURCE_POOL"
	EnvFolder        = "GOVC_FOLDER"
	EnvNetwork       = "GOVC_NETWORK"
	// EnvPersistSession is govc's switch for the session cache; EnvHome is
	// govmomi's directory for it (session/cache).
	EnvPersistSession = "GOVC_PERSIST_SESSION"
	EnvHome           = "GOVMOMI_HOME"
)

// Config says where vSphere is and where VMs go. Each field has the govc
// environment variable and the vmbench flag named in its comment.
type Config struct {
	// URL of vCenter or ESXi (GOVC_URL, --url). A bare host becomes
	// https://host/sdk, as govc does; it may carry user:password@.
	URL string
	// Username overrides the URL's user (GOVC_USERNAME, --username). As in
	// govc, a value naming a readable file is replaced by the file's contents.
	Username string
	// Password overrides the URL's password (GOVC_PASSWORD, --password); a
	// file path is read like Username. Never printed by String or errors.
	Password string
	// Insecure skips TLS certificate verification (GOVC_INSECURE=1|true, -k).
	// By default the server's certificate is verified against the system's
	// CAs, or TLSCACerts, then TLSKnownHosts.
	Insecure bool
	// TLSCACerts names PEM files of the CAs to trust instead of the
	// system's, separated by the OS path-list separator (':' on Unix), as
	// govc's GOVC_TLS_CA_CERTS (--tls-ca-certs). A file that cannot be read
	// or holds no certificate is an error.
	TLSCACerts string
	// TLSKnownHosts names files of pinned certificate thumbprints, lines
	// "host[:port] thumbprint" (SHA-256 or SHA-1, as 'govc about.cert
	// -thumbprint' prints), path-list separated, as govc's
	// GOVC_TLS_KNOWN_HOSTS (--tls-known-hosts). A pin is used only when
	// normal verification fails. Unlike govc, a missing file is an error.
	TLSKnownHosts string
	// PersistSession keeps the session in a file of the session cache and
	// reuses it in the next Connect while vSphere still accepts it, as
	// govc's GOVC_PERSIST_SESSION (--persist-session); Close then leaves
	// the session open (vSphere ends it after its idle timeout) instead of
	// logging out. The file holds the session cookie, never the password
	// (mode 0600, directory 0700). ConfigFromEnv turns it on unless
	// GOVC_PERSIST_SESSION is "0" or "false" (govc's default); a Config
	// built in code has it off.
	PersistSession bool
	// Home is the session cache's directory, as govmomi's GOVMOMI_HOME
	// (no flag); the files go in its sessions/ subdirectory. Empty means
	// ~/.govmomi.
	Home string
	// Datacenter (GOVC_DATACENTER, --dc); empty means the only datacenter.
	Datacenter string
	// Datastore (GOVC_DATASTORE, --ds): one name or a comma-separated list.
	Datastore string
	// ResourcePool (GOVC_RESOURCE_POOL, --pool); empty means the default pool.
	ResourcePool string
	// Folder (GOVC_FOLDER, --folder); empty means the datacenter's vm folder.
	Folder string
	// Network for the VMs' first NIC (GOVC_NETWORK, --net); empty keeps the
	// template's network.
	Network string
	// Template is the VM or template to clone (--template). govc has no
	// variable for it.
	Template string
}

// ConfigFromEnv reads govc's variables through getenv (os.Getenv in a
// command, a map lookup in tests). GOVC_INSECURE is true for "1" or "true"
// (any case), as in govc; GOVC_PERSIST_SESSION is true unless "0" or
// "false" (any case), as in govc. File-valued username and password are
// resolved when the Config is used (Validate, Connect), not here.
func ConfigFromEnv(getenv func(string) string) Config {
	ins := strings.ToLower(strings.TrimSpace(getenv(EnvInsecure)))
	persist := strings.ToLower(strings.TrimSpace(getenv(EnvPersistSession)))
	return Config{
		PersistSession: persist != "0" && persist != "false",
		Home:           getenv(EnvHome),
		URL:            getenv(EnvURL),
		Username:       getenv(EnvUsername),
		Password:       getenv(EnvPassword),
		Insecure:       ins == "1" || ins == "true",
		TLSCACerts:     getenv(EnvTLSCACerts),
		TLSKnownHosts:  getenv(EnvTLSKnownHosts),
		Datacenter:     getenv(EnvDatacenter),
		Datastore:      getenv(EnvDatastore),
		ResourcePool:   getenv(EnvResourcePool),
		Folder:         getenv(EnvFolder),
		Network:        getenv(EnvNetwork),
	}
}

// Datastores splits Datastore on commas, dropping blanks.
func (c Config) Datastores() []string { return splitList(c.Datastore) }

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Validate reports every problem at once, each naming the field, its
// environment variable and its flag. It resolves file-valued credentials
// (govc's session.Secret) to check them, and reads the TLS files. The
// password never appears.
func (c Config) Validate() error {
	_, err := c.endpoint()
	return errors.Join(append([]error{err}, c.tlsFilesErrors()...)...)
}

// endpoint returns the parsed URL with the credentials applied the way govc
// applies them: GOVC_USERNAME and GOVC_PASSWORD override the URL's userinfo.
func (c Config) endpoint() (*url.URL, error) {
	var errs []error
	if strings.TrimSpace(c.URL) == "" {
		return nil, errors.New("vSphere URL is missing: set --url or " + EnvURL + " (e.g. https://vcenter.example.com/sdk)")
	}
	u, err := soap.ParseURL(strings.TrimSpace(c.URL))
	if err != nil || u.Host == "" {
		// url.Parse errors quote the whole URL, password included: say
		// what is wrong without echoing it.
		return nil, fmt.Errorf("vSphere URL (--url / %s) is not a valid URL: expected [https://][user[:password]@]host[:port][/sdk]", EnvURL)
	}
	user, uerr := session.Secret(c.Username)
	if uerr != nil {
		errs = append(errs, fmt.Errorf("username (--username / %s) names a file that cannot be read: %w", EnvUsername, uerr))
	}
	pass, perr := session.Secret(c.Password)
	if perr != nil {
		errs = append(errs, fmt.Errorf("password (--password / %s) names a file that cannot be read: %w", EnvPassword, perr))
	}
	if user != "" {
		p, ok := u.User.Password()
		if ok {
			u.User = url.UserPassword(user, p)
		} else {
			u.User = url.User(user)
		}
	}
	if pass != "" {
		u.User = url.UserPassword(u.User.Username(), pass)
	}
	if u.User.Username() == "" {
		errs = append(errs, fmt.Errorf("vSphere username is missing: set --username or %s, or put user@ in the URL", EnvUsername))
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		errs = append(errs, fmt.Errorf("vSphere URL (--url / %s) has scheme %q: use https", EnvURL, u.Scheme))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return u, nil
}

// String describes the configuration for logs, with the password (from the
// Password field and from the URL) replaced by "xxxxx".
func (c Config) String() string {
	shown := c.RedactedURL()
	if shown == "" {
		shown = "(none)"
	}
	pw := "unset"
	if c.Password != "" {
		pw = "set"
	}
	return fmt.Sprintf("url=%s username=%q password=%s insecure=%t tls-ca-certs=%q tls-known-hosts=%q persist-session=%t datacenter=%q datastore=%q pool=%q folder=%q network=%q template=%q",
		shown, c.Username, pw, c.Insecure, c.TLSCACerts, c.TLSKnownHosts, c.PersistSession, c.Datacenter, c.Datastore, c.ResourcePool, c.Folder, c.Network, c.Template)
}

// RedactedURL is the URL as given, with a password in it replaced by
// "xxxxx" (and no empty userinfo), for logs and records.
func (c Config) RedactedURL() string {
	if strings.TrimSpace(c.URL) == "" {
		return ""
	}
	u, err := soap.ParseURL(strings.TrimSpace(c.URL))
	if err != nil || u == nil {
		return "(invalid URL)"
	}
	if p, _ := u.User.Password(); p == "" && u.User.Username() == "" {
		u.User = nil // ParseURL always sets an (empty) userinfo
	}
	return u.Redacted()
}

// redact removes the secrets of c from msg (errors from the HTTP stack may
// quote the request URL).
func (c Config) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	secrets := []string{c.Password}
	if u, perr := soap.ParseURL(strings.TrimSpace(c.URL)); perr == nil && u != nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p, url.QueryEscape(p), url.PathEscape(p))
		}
	}
	if p, perr := session.Secret(c.Password); perr == nil {
		secrets = append(secrets, p)
	}
	changed := false
	for _, s := range secrets {
		if len(s) >= 3 && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return redactedError{msg: msg, err: err}
}

// redactedError keeps the chain for errors.Is/As (fault types, context
// errors) but prints the redacted text.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }
