package scenarios

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"vmbench/internal/textfmt"
	"vmbench/report"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// CampaignPlan is what `vmbench campaign plan FILE` shows: a campaign's VMs
// against the capacity of the hosts and datastores it would use, from the
// campaign's own preflight, which creates nothing.
type CampaignPlan struct {
	// Campaign is the file's name:; VSphere says where it was planned
	// (the redacted URL, or the in-process simulator).
	Campaign string `json:"campaign"`
	VSphere  string `json:"vsphere"`
	// Role, Count and Layout are the VMs it would provision.
	Role   string         `json:"role"`
	Count  int            `json:"count"`
	Layout vsphere.Layout `json:"layout"`
	// Hosts are the pinned hosts (vms.hosts), if any.
	Hosts []string `json:"hosts,omitempty"`
	// Preflight is the check's report: capacities, per-host and
	// per-datastore plan, warnings and problems.
	Preflight vsphere.PreflightReport `json:"preflight"`
	// Fits is true when the preflight found no problem.
	Fits bool `json:"fits"`
}

// PlanCampaign checks cf as Run does (bad input is an error naming the
// file and line), connects to vSphere (in simulation the in-process
// simulator, removed afterwards) and runs the preflight of the campaign's
// provisioning. A campaign that does not fit is not an error: the plan
// says so (Fits false) with its problems. Errors are bad input and
// failures to reach or read vSphere.
func PlanCampaign(ctx context.Context, k *Checked) (*CampaignPlan, error) {
	c := k.c
	c.log = io.Discard
	if err := c.findData(ctx); err != nil {
		return nil, err
	}
	return planCampaign(ctx, c)
}

// PlanSuite is PlanCampaign for a block suite in VMs (its block-worker
// VMs).
func PlanSuite(ctx context.Context, s *spec.Suite, opts Options) (*CampaignPlan, error) {
	c, err := checkVMSuite(s, opts)
	if err != nil {
		return nil, err
	}
	return planCampaign(ctx, c)
}

func planCampaign(ctx context.Context, c *campaign) (*CampaignPlan, error) {
	c.log, c.id, c.tl = io.Discard, "plan", rundir.NewTimeline(c.opts.Clock)
	sess, closeSess, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer closeSess()
	pspec := c.provisionSpec(sess)
	pspec.CampaignID = vsphere.NewCampaignID(c.tl.Now())
	rep, perr := sess.Preflight(ctx, pspec)
	if perr != nil && rep.OK() { // not a verdict: the check itself failed
		return nil, fmt.Errorf("preflight: %w", perr)
	}
	if err := c.restoreSpec(ctx, sess, &pspec); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
	return &CampaignPlan{Campaign: c.spec.Name, VSphere: c.vc.where, Role: c.layout.Role, Count: pspec.Count,
		Layout: c.layout, Hosts: pspec.Hosts, Preflight: rep, Fits: rep.OK()}, nil
}

// WriteText writes the plan as a reader checks it: the VMs, then a table
// of hosts and one of datastores against their capacity, the warnings and
// problems, and the verdict.
func (p *CampaignPlan) WriteText(w io.Writer) error {
	r := p.Preflight
	l := p.Layout
	res := "memory not reserved"
	if l.ReserveMemory {
		res = "memory reserved"
	}
	fmt.Fprintf(w, "campaign %s: %d x %s VMs (%d vCPU, %d GB RAM, %s; %s) on %s\n", p.Campaign, p.Count, p.Role,
		l.NumCPU, l.MemoryMB/1024, res, diskWords(l), p.VSphere)
	kind := "template"
	if !r.IsTemplate {
		kind = "a VM, not a template"
	}
	if r.BootDiskGB > 0 {
		fmt.Fprintf(w, "template %s (%s, boot disk %d GB); ", r.Template, kind, r.BootDiskGB)
	} else {
		fmt.Fprintf(w, "template %s (not read: see the problems); ", r.Template)
	}
	fmt.Fprintf(w, "resource pool %s; folder %s\n\n", cmp.Or(r.ResourcePool, "(not found)"), cmp.Or(r.Folder, "(not found)"))
	if err := hostTable(r, len(p.Hosts) > 0).WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := datastoreTable(r).WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, x := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", x)
	}
	for _, x := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", x)
	}
	if p.Fits {
		_, err := fmt.Fprintln(w, "verdict: the campaign fits; nothing was created")
		return err
	}
	_, err := fmt.Fprintf(w, "verdict: the campaign does not fit (%d problem(s)); nothing was created\n", len(r.Problems))
	return err
}

// diskWords lists a layout's vDisks: "boot 92 GB thin + db-test 270 GB eagerZeroedThick".
func diskWords(l vsphere.Layout) string {
	parts := make([]string, len(l.Disks))
	for i, d := range l.Disks {
		parts[i] = fmt.Sprintf("%s %d GB %s", d.Name, d.SizeGB, d.Provisioning)
	}
	return strings.Join(parts, " + ")
}

// hostTable is each host's capacity and what the campaign puts on it;
// pinned says the file pins the VMs to hosts (vms.hosts).
func hostTable(r vsphere.PreflightReport, pinned bool) *report.Table {
	t := &report.Table{Columns: []report.Column{{Header: "host"}, {Header: "state"}, {Header: "cores", Align: report.Right},
		{Header: "threads", Align: report.Right}, {Header: "memory (GB)", Align: report.Right}, {Header: "VMs", Align: report.Right},
		{Header: "vCPU", Align: report.Right}, {Header: "vCPU/thread", Align: report.Right},
		{Header: "VM memory (GB)", Align: report.Right}, {Header: "reserved (GB)", Align: report.Right}}}
	planned := false
	for _, h := range r.Hosts {
		state := "usable"
		switch {
		case !h.Connected:
			state = "disconnected"
		case h.Maintenance:
			state = "maintenance"
		}
		row := []string{h.Name, state, gb(h.Cores), gb(h.Threads), gb(h.MemoryMB / 1024), "-", "-", "-", "-", "-"}
		if h.Planned {
			planned = true
			row[5], row[6], row[7] = strconv.Itoa(h.VMs), gb(h.VCPUs), ratio(h.VCPUs, h.Threads)
			row[8], row[9] = gb(h.VMMemoryMB/1024), gb(h.ReservedMB/1024)
		}
		t.Rows = append(t.Rows, row)
	}
	t.Rows = append(t.Rows, []string{"all usable hosts", "", gb(r.HostCores), gb(r.HostThreads), gb(r.HostMemoryMB / 1024),
		"", gb(r.VCPUs), ratio(r.VCPUs, r.HostThreads), gb(r.MemoryMB / 1024), ""})
	switch {
	case !planned && pinned:
		t.Notes = append(t.Notes, "VMs per host: not planned, the pinned hosts have problems (below)")
	case !planned:
		t.Notes = append(t.Notes, "VMs per host: chosen by vSphere (DRS) at power-on; pin them with vms.hosts to plan per host")
	}
	return t
}

// datastoreTable is each datastore's space against what its VMs need.
func datastoreTable(r vsphere.PreflightReport) *report.Table {
	restore := slices.ContainsFunc(r.Datastores, func(d vsphere.DatastoreCheck) bool { return d.RestoreGB > 0 })
	cols := []report.Column{{Header: "datastore"}, {Header: "type"}, {Header: "capacity (GB)", Align: report.Right},
		{Header: "free (GB)", Align: report.Right}, {Header: "VMs", Align: report.Right}, {Header: "thick (GB)", Align: report.Right},
		{Header: "swap (GB)", Align: report.Right}}
	notes := []string{"needed = thick and eager-zeroed disks + swap files (memory minus reservation); thin disks are allocated as written"}
	if restore {
		cols = append(cols, report.Column{Header: "restore copy (GB)", Align: report.Right})
		notes[0] = "needed = thick and eager-zeroed disks + swap files (memory minus reservation) + the copy a restore of the data disk makes beside the disk it replaces (one at a time per datastore); thin disks are allocated as written"
	}
	cols = append(cols, report.Column{Header: "needed (GB)", Align: report.Right},
		report.Column{Header: "thin, up to (GB)", Align: report.Right}, report.Column{Header: "used after", Align: report.Right}, report.Column{Header: "verdict"})
	t := &report.Table{Columns: cols, Notes: notes}
	for _, d := range r.Datastores {
		var row []string
		if !d.Found {
			row = []string{d.Name, "not found", "", "", strconv.Itoa(d.VMs), "", "", "", "", "", "does not exist"}
		} else {
			verdict := "fits"
			switch {
			case !d.Accessible:
				verdict = "not accessible"
			case d.NeededGB() > d.FreeGB:
				verdict = fmt.Sprintf("short by %d GB", d.NeededGB()-d.FreeGB)
			}
			used := "-"
			if d.CapacityGB > 0 {
				used = fmt.Sprintf("%.0f%%", 100*float64(d.CapacityGB-d.FreeGB+d.NeededGB())/float64(d.CapacityGB))
			}
			row = []string{d.Name, d.Type, gb(d.CapacityGB), gb(d.FreeGB), strconv.Itoa(d.VMs), gb(d.ReservedGB),
				gb(d.SwapGB), gb(d.NeededGB()), gb(d.ThinGB), used, verdict}
		}
		if restore {
			cell := ""
			if d.Found {
				cell = gb(d.RestoreGB)
			}
			row = slices.Insert(row, 7, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// gb formats a whole number of GB (or cores) with thousands separators.
func gb(n int64) string { return textfmt.Thousands(n) }

// ratio is a/b with two decimals, "-" when b is 0.
func ratio(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}
