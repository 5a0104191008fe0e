package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// This file holds the campaign's steps around provisioning (preflight,
// the VMs to measure) and the writers its parallel steps log through.

// preflight runs the preflight step: it logs the report, records the
// placement as resolved, and returns the provisioning spec it checked.
func (c *campaign) preflight(ctx context.Context, sess *vsphere.Session) (vsphere.ProvisionSpec, error) {
	pspec := c.provisionSpec(sess)
	c.tl.Begin(rundir.StepPreflight)
	c.stepf(rundir.StepPreflight, "preflight")
	rep, err := sess.Preflight(ctx, pspec)
	if err != nil {
		return pspec, fmt.Errorf("preflight: %w", err)
	}
	for _, l := range strings.Split(strings.TrimRight(rep.String(), "\n"), "\n") {
		c.logf("%s", l)
	}
	c.vc.placement = spec.VSphere{Datacenter: firstNonEmpty(sess.Datacenter.InventoryPath, sess.Datacenter.Name()),
		ResourcePool: rep.ResourcePool, Folder: rep.Folder, Network: pspec.Network}
	return pspec, nil
}

// provisionLog logs Provision's progress lines, but for its preflight
// warnings: the preflight step has logged them.
func (c *campaign) provisionLog(m string) {
	if !strings.HasPrefix(m, "preflight warning: ") {
		c.logf("%s", m)
	}
}

// measurable returns the VMs that reported an IP: with vms.on-ip-timeout:
// continue, Provision returns the others too, and each is logged and
// left out (it is removed at teardown with the rest). None left is an
// error.
func (c *campaign) measurable(vms []vsphere.VM) ([]vsphere.VM, error) {
	var out []vsphere.VM
	for _, vm := range vms {
		if vm.IPErr != nil {
			c.logf("warning: %s is left out of the measurement: %v", vm.Name, vm.IPErr)
			continue
		}
		out = append(out, vm)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no VM reported an IP within vms.ip-timeout: nothing to measure")
	}
	return out, nil
}

// syncWriter serialises writes: VMs are provisioned, prepared and run in
// parallel, and each write is one whole line.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// prefixWriter writes whole lines with a prefix, one Write per line, so
// that several VMs' progress lines never interleave mid-line. A carriage
// return (an in-place progress redraw) ends a line too.
type prefixWriter struct {
	prefix string
	w      io.Writer
	buf    bytes.Buffer
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf.Write(b)
	for {
		i := bytes.IndexAny(p.buf.Bytes(), "\r\n")
		if i < 0 {
			return len(b), nil
		}
		line := strings.TrimSpace(string(p.buf.Next(i + 1)))
		if line != "" {
			fmt.Fprintf(p.w, "%s%s\n", p.prefix, line)
		}
	}
}

// Flush writes a last unterminated line.
func (p *prefixWriter) Flush() {
	if p.buf.Len() > 0 {
		_, _ = p.Write([]byte("\n")) // a log line: a failed write has nowhere to be told
	}
}
