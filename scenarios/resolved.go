package scenarios

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"go.yaml.in/yaml/v3"

	"vmbench/internal/atomicfile"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// The campaign as it ran: campaign.yaml of the results directory.

// writeResolved records the campaign as it ran, as campaign.yaml in the
// results directory: the simulated sizes applied, the template, the
// datastores the VMs are on, the placement as resolved (datacenter,
// resource pool and folder as inventory paths, network), whatever set it
// (file, GOVC_* or flags), and in simulation the simulator's shape and
// the database server, with the tool version and host in a comment. It
// loads with Load and runs the same campaign again.
func (c *campaign) writeResolved(vms []vsphere.VM) error {
	r, note := c.resolved(vms)
	b, err := yaml.Marshal(r)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	hdr := fmt.Sprintf("# campaign %s as run by vmbench %s on %s, %s\n# simulate: %v", c.id, c.opts.Version, host,
		time.Now().UTC().Format(time.RFC3339), c.env.simulated()) + note
	return atomicfile.Write(filepath.Join(c.dir, "campaign.yaml"), []byte(hdr+"\n"+string(b)))
}

// vsphereFlags are the flags that reach the vSphere a simulated campaign
// ran against when it was not the in-process simulator (--url, without
// its password, and the TLS flags it ran with), each with a leading
// space, and, for a URL with a user, a comment line on where the
// password comes from; "" for the in-process simulator.
func (c *campaign) vsphereFlags() string {
	if c.vc.simHosts > 0 || c.vc.vsphereURL == "" {
		return ""
	}
	cfg := c.opts.VSphere
	f := " --url " + withoutPassword(c.vc.vsphereURL)
	if cfg.Insecure {
		f += " -k"
	}
	if cfg.TLSCACerts != "" {
		f += " --tls-ca-certs " + cfg.TLSCACerts
	}
	if cfg.TLSKnownHosts != "" {
		f += " --tls-known-hosts " + cfg.TLSKnownHosts
	}
	if u, err := url.Parse(c.vc.vsphereURL); err == nil && u.User != nil {
		f += "\n# (with the vSphere's password in " + vsphere.EnvPassword + " or --password)"
	}
	return f
}

// resolved is the campaign as it runs (see writeResolved), with what the
// header says of its environment after "simulate:"
// (environment.recordSpec).
func (c *campaign) resolved(vms []vsphere.VM) (*spec.Campaign, string) {
	r := *c.spec
	r.Simulate = nil
	r.VMs.Template = c.vc.template
	r.VMs.Datastores = nil
	seen := map[string]bool{}
	for _, vm := range vms {
		if !seen[vm.Datastore] {
			seen[vm.Datastore] = true
			r.VMs.Datastores = append(r.VMs.Datastores, vm.Datastore)
		}
	}
	r.VSphere = c.vc.placement
	if c.vc.simHostNames != nil {
		r.VMs.Hosts = c.vc.simHostNames // the simulator's hosts stood for the file's
	}
	r.Workload.Flags = recordedFlags(c.cfg) // what ran, as parsed
	if r.Data != nil {                      // a resume from elsewhere finds the same data sets
		d := *r.Data
		if abs, err := filepath.Abs(c.spec.DataDir()); err == nil {
			d.Dir = abs
		}
		r.Data = &d
	}
	r.Driver, _ = driverName(c.spec, c.opts, c.env) // checked by Check
	note := c.env.recordSpec(c, &r)
	return &r, note
}
