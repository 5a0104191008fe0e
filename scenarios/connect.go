package scenarios

import (
	"context"

	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
)

// This file opens a campaign's vSphere session: a vCenter or ESXi, or the
// in-process simulator shaped by the campaign file (environment.connect).

// openSession times the connect step, connects (connect) and sets
// c.vc.sess; the function it returns closes the session, timed as teardown.
func (c *campaign) openSession(ctx context.Context) (*vsphere.Session, func(), error) {
	c.tl.Begin(rundir.StepConnect)
	sess, closeSess, err := c.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	c.vc.sess = sess
	return sess, func() {
		c.tl.Begin(rundir.StepTeardown)
		closeSess()
	}, nil
}

// connect opens the vSphere session, as the campaign's environment
// does: a vCenter, or a simulator it starts.
func (c *campaign) connect(ctx context.Context) (*vsphere.Session, func(), error) {
	cfg := c.opts.VSphere
	if cfg.Datacenter == "" {
		cfg.Datacenter = c.spec.VSphere.Datacenter // GOVC_DATACENTER / --dc win over the file
	}
	c.vc.vsphereURL, c.vc.placementDC = cfg.RedactedURL(), cfg.Datacenter
	c.vc.where = "the vSphere at " + c.vc.vsphereURL
	sess, err := c.env.connect(ctx, c, cfg)
	if err != nil {
		return nil, nil, err
	}
	sess.SetParallel(c.spec.VMs.Parallel) // teardown keeps the provisioning's bound
	return sess, func() { _ = sess.Close(ctx) }, nil
}
