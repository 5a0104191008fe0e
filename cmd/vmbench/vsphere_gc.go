package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"vmbench/scenarios/teardown"
	"vmbench/vsphere"
)

const gcLong = `gc finds the VMs of campaigns that are gone and removes them: VMs left
behind by a run that was killed, lost its connection, or kept its VMs.

A VM belongs to a campaign by its extraConfig vmbench.campaign tag; the
campaign id is its results directory's name (see 'campaign run'). A VM is
garbage when its campaign does not run, that is when its results directory
under --results-dir is
  finished                 <dir>/<id>
  incomplete, not running  <dir>/<id>.incomplete, whose run lock no process holds
  absent                   no such directory (also the VMs of 'vsphere provision'),
                           and this machine made the VM (its vmbench.harness tag
                           is this host's name), or --campaign names it, or
                           --older-than is given: another harness keeps its
                           running campaigns' results on its own disk
and, with --older-than, when its vmbench.created time is older than that.

Never removed: VMs without a vmbench tag, templates, VMs of a campaign whose
run lock is held (it runs, or 'campaign teardown' works on it), and VMs whose
campaign's state cannot be read. The lock of a campaign is held while its VMs
are removed. A campaign of this machine that runs with another --results-dir
looks absent here: name the same --results-dir it uses, and try --dry-run
first.

The table shows each VM, its campaign, creation time, the campaign's state
and the action, with the reason.`

const gcExample = `  # what would go, and why
  vmbench vsphere gc --dry-run
  # remove the leftovers of campaigns more than a day old
  vmbench vsphere gc --older-than 24h --results-dir /data/vmbench/results
  # only one campaign's
  vmbench vsphere gc --campaign sysbench-8vm-20260102T150405Z-a1b2`

// gcFlags are vsphere gc's own flags.
type gcFlags struct {
	results, campaign, olderThan string
	dryRun                       bool
}

// gcRow is one VM of gc's table.
type gcRow struct {
	vm    vsphere.VM
	state teardown.CampaignState
	teardown.GCDecision
}

func newVSphereGCCmd(a *app, f *vsphereFlags) *cobra.Command {
	var g gcFlags
	cmd := &cobra.Command{
		Use:     "gc [--dry-run] [--older-than DURATION] [--campaign ID] [--results-dir DIR]",
		Short:   "Remove the VMs of campaigns that no longer run",
		Long:    gcLong,
		Example: gcExample,
		Args:    vsphereNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.refuseSimulate(cmd); err != nil {
				return err
			}
			opts, err := g.check(cmd)
			if err != nil {
				return err
			}
			return f.withSession(a, cmd, func(ctx context.Context, s *vsphere.Session) error {
				return g.run(ctx, a, s, opts)
			})
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&g.dryRun, "dry-run", false, "list what would be removed and why; remove nothing")
	fs.StringVar(&g.olderThan, "older-than", "", "only VMs created (vmbench.created) longer ago than this, e.g. 36h or 90m (default: any age)")
	fs.StringVar(&g.campaign, "campaign", "", "only this campaign's VMs")
	fs.StringVar(&g.results, "results-dir", "results", "the directory holding the campaigns' results directories, as given to 'campaign run'")
	fs.StringVar(&g.results, "results", "results", "same as --results-dir")
	f.bindConnection(fs)
	f.bindSimulate(fs, true)
	return cmd
}

// check validates the flags before any connection: problems are usage
// errors naming the flag and what it takes.
func (g gcFlags) check(cmd *cobra.Command) (teardown.GCOptions, error) {
	opts := teardown.GCOptions{Now: time.Now(), Harness: vsphere.Harness(), Named: cmd.Flags().Changed("campaign")}
	if g.olderThan != "" {
		d, err := time.ParseDuration(g.olderThan)
		if err != nil || d <= 0 {
			return opts, usagef("%s: --older-than %q: give a positive duration with a unit, h, m or s (e.g. 36h, 90m; there is no unit for days)", cmd.CommandPath(), g.olderThan)
		}
		opts.OlderThan = d
	}
	if cmd.Flags().Changed("campaign") {
		if err := vsphere.ValidCampaignID(g.campaign); err != nil {
			return opts, usagef("%s: --campaign: %v", cmd.CommandPath(), err)
		}
	}
	if g.results == "" {
		return opts, usagef("%s: --results-dir is empty: name the directory that holds the campaigns' results directories (default results)", cmd.CommandPath())
	}
	if fi, err := os.Stat(g.results); err != nil || !fi.IsDir() {
		return opts, usagef("%s: --results-dir %s is not a directory: name the one 'campaign run' wrote to "+
			"(without it every campaign would look gone); make it empty (mkdir) if no campaign ever ran here", cmd.CommandPath(), g.results)
	}
	return opts, nil
}

// run lists the tagged VMs, decides for each, prints the table and, unless
// --dry-run, removes the garbage one campaign at a time, holding the
// campaign's lock meanwhile.
func (g gcFlags) run(ctx context.Context, a *app, s *vsphere.Session, opts teardown.GCOptions) error {
	vms, err := s.List(ctx, g.campaign)
	if err != nil {
		return err
	}
	if len(vms) == 0 {
		fmt.Fprintln(a.stderr, "no vmbench VMs found")
		return nil
	}
	rows, garbage := decideGC(vms, g.results, opts)
	if err := printGCTable(a.stdout, rows, g.dryRun); err != nil {
		return err
	}
	n := 0
	for _, c := range garbage {
		n += len(c)
	}
	if g.dryRun {
		fmt.Fprintf(a.stdout, "dry run: %d of %d VM(s) would be removed, of %d campaign(s); nothing was removed\n", n, len(vms), len(garbage))
		return nil
	}
	removed, errs := 0, []error(nil)
	for _, id := range slices.Sorted(maps.Keys(garbage)) {
		k, err := removeCampaignVMs(ctx, a, s, g.results, id, garbage[id])
		removed += k
		if err != nil {
			errs = append(errs, fmt.Errorf("campaign %s: %w", id, err))
		}
	}
	fmt.Fprintf(a.stdout, "removed %d of %d VM(s) of %d campaign(s)\n", removed, n, len(garbage))
	return errors.Join(errs...)
}

// decideGC probes each campaign once and decides for each VM; it returns
// the table's rows, by campaign then name, and the VMs to remove by
// campaign.
func decideGC(vms []vsphere.VM, results string, opts teardown.GCOptions) ([]gcRow, map[string][]vsphere.VM) {
	probes := map[string]teardown.CampaignProbe{}
	garbage := map[string][]vsphere.VM{}
	rows := make([]gcRow, 0, len(vms))
	for _, vm := range vms {
		p, ok := probes[vm.CampaignID]
		if !ok {
			p = teardown.ProbeCampaign(results, vm.CampaignID)
			probes[vm.CampaignID] = p
		}
		d := teardown.DecideGC(vm, p, opts)
		rows = append(rows, gcRow{vm: vm, state: p.State, GCDecision: d})
		if d.Remove {
			garbage[vm.CampaignID] = append(garbage[vm.CampaignID], vm)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].vm.CampaignID < rows[j].vm.CampaignID })
	return rows, garbage
}

// removeCampaignVMs removes one campaign's garbage VMs while holding its
// run lock; a campaign whose lock was taken since the probe is left alone.
func removeCampaignVMs(ctx context.Context, a *app, s *vsphere.Session, results, id string, vms []vsphere.VM) (int, error) {
	release, err := teardown.LockCampaign(results, id)
	if err != nil {
		return 0, fmt.Errorf("left alone: %w", err)
	}
	defer release()
	return s.RemoveVMs(ctx, vms, lineWriter(a.stderr))
}

// printGCTable prints gc's table.
func printGCTable(w io.Writer, rows []gcRow, dryRun bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VM\tCAMPAIGN\tCREATED\tCAMPAIGN STATE\tACTION\tWHY")
	for _, r := range rows {
		action := "keep"
		if r.Remove {
			action = "remove"
			if dryRun {
				action = "would remove"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.vm.Name, r.vm.CampaignID, createdCell(r.vm), r.state, action, r.Reason)
	}
	return tw.Flush()
}
