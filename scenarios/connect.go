package scenarios

import (
	"context"
	"fmt"
	"strings"

	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
)

// This file opens a campaign's vSphere session: a vCenter or ESXi, or the
// in-process simulator shaped by the campaign file.

// openSession times the connect step, connects (connect) and sets
// c.sess; the function it returns closes the session, timed as teardown.
func (c *campaign) openSession(ctx context.Context) (*vsphere.Session, func(), error) {
	c.tl.begin(rundir.StepConnect)
	sess, closeSess, err := c.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	c.sess = sess
	return sess, func() {
		c.tl.begin(rundir.StepTeardown)
		closeSess()
	}, nil
}

// connect opens the vSphere session: an in-process vcsim in simulation.
func (c *campaign) connect(ctx context.Context) (*vsphere.Session, func(), error) {
	cfg := c.opts.VSphere
	if cfg.Datacenter == "" {
		cfg.Datacenter = c.spec.VSphere.Datacenter // GOVC_DATACENTER / --dc win over the file
	}
	c.vsphereURL, c.placementDC = cfg.RedactedURL(), cfg.Datacenter
	c.where = "the vSphere at " + c.vsphereURL
	var sess *vsphere.Session
	var err error
	// In simulation an in-process vcsim is started, unless a vSphere URL
	// was given (a vcsim of one's own, or a lab vCenter for the
	// provisioning steps alone).
	if c.opts.Simulate && cfg.URL == "" {
		sess, err = c.startSimulator(ctx)
	} else {
		sess, err = vsphere.Connect(ctx, cfg)
	}
	if err != nil {
		return nil, nil, err
	}
	sess.SetParallel(c.spec.VMs.Parallel) // teardown keeps the provisioning's bound
	return sess, func() { _ = sess.Close(ctx) }, nil
}

// startSimulator starts the in-process vcsim, shaped by the file's
// datastores and simulate block, records its directory in the manifest
// (and its removal when it closes) and logs in to it.
func (c *campaign) startSimulator(ctx context.Context) (*vsphere.Session, error) {
	n := 8
	if len(c.spec.VMs.Datastores) > 0 {
		n = len(c.spec.VMs.Datastores)
	}
	hosts := max(1, len(c.spec.VMs.Hosts)) // a review measures one server
	shape := vsphere.SimOptions{}
	if s := c.spec.Simulate; s != nil {
		shape = vsphere.SimOptions{DatastoreGB: s.DatastoreGB, HostCores: s.HostCores, HostMemoryGB: s.HostMemoryGB}
		if s.Datastores > 0 {
			n = s.Datastores
		}
		if s.Hosts > 0 {
			hosts = max(s.Hosts, len(c.spec.VMs.Hosts)) // one simulated host per pinned host
		}
	}
	shape.Hosts, shape.Datastores = hosts, n
	sess, sim, err := vsphere.StartSimulatedSession(ctx, shape,
		func(sim *vsphere.Simulator) (func(), error) {
			home := sim.Home()
			if err := c.manifest.Record(rundir.Created{Op: rundir.OpCreate, Kind: rundir.KindSimDir, Name: home, Note: "the in-process vSphere simulator's datastores"}); err != nil {
				return nil, err
			}
			return func() { c.removed(rundir.KindSimDir, []string{home}, "") }, nil
		})
	if err != nil {
		return nil, fmt.Errorf("starting the vSphere simulator: %w", err)
	}
	cfg := sim.Config()
	c.sim = sim
	c.simHosts, c.simDatastores, c.where = hosts, n, "in-process simulator (vcsim)"
	if len(c.spec.VMs.Hosts) > 0 { // pinned hosts become the simulator's
		c.simHostNames = sim.Hosts()[:min(len(c.spec.VMs.Hosts), hosts)]
	}
	c.vsphereURL, c.placementDC = cfg.RedactedURL(), cfg.Datacenter
	fmt.Fprintf(c.log, "vSphere: in-process simulator (vcsim), %d host(s), datastores %s\n", hosts, strings.Join(sim.Datastores(), ", "))
	return sess, nil
}
