package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"vmbench/scenarios"
	"vmbench/scenarios/spec"
)

const campaignPlanLong = `Plan the campaign in FILE without creating anything: connect to vSphere (or,
with --simulate, an in-process simulator shaped as the file says), run the
campaign's preflight and show its VMs against the capacity of the hosts and
datastores they would use: per host its cores, threads and memory against the
VMs' vCPU, memory and reservations (per host when vms.hosts pins them, or the
pool has one host); per datastore its free space against the VMs' thick and
eager-zeroed disks and swap files, thin disks and the space used after.

It exits 0 when the campaign fits, 1 when it does not (the problems are
listed), and 2 for bad input (a file, flag or value).`

const campaignPlanExample = `  vmbench campaign plan scenarios/sysbench-16vm.yaml
  vmbench campaign plan scenarios/sysbench-16vm.yaml --simulate --format json`

func newCampaignPlanCmd(a *app) *cobra.Command {
	fl := &campaignRunFlags{}
	var format string
	cmd := &cobra.Command{
		Use:     "plan FILE",
		Short:   "Show what the campaign in FILE needs against the hosts' and datastores' capacity, creating nothing",
		Long:    campaignPlanLong,
		Example: campaignPlanExample,
		Args:    exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usagef("--format %q: valid values are text and json", format)
			}
			file, err := spec.LoadAny(args[0])
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return usagef("campaign file %s does not exist (the standard ones are in scenarios/)", args[0])
				}
				return asUsage(err)
			}
			plan, err := planFile(cmd.Context(), a, fl, args[0], file)
			if err != nil {
				return err
			}
			if format == "json" {
				b, err := json.MarshalIndent(plan, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(a.stdout, "%s\n", b)
				if err != nil {
					return err
				}
			} else if err := plan.WriteText(a.stdout); err != nil {
				return err
			}
			if !plan.Fits {
				return fmt.Errorf("campaign %s does not fit: %d problem(s), listed above", plan.Campaign, len(plan.Preflight.Problems))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&fl.simulate, "simulate", false, "plan on an in-process vSphere simulator shaped by the file's simulate: block, with its sizes")
	f.StringVar(&format, "format", "text", "text (the tables) or json (the plan and the preflight's figures)")
	f.StringVar(&fl.dsn, "db-dsn", "", "with --simulate: the MySQL/MariaDB server of the runs' databases, where a data set of data: {source: prebuilt} is looked for (as campaign run's --db-dsn)")
	f.StringVar(&fl.pwFile, "db-password-file", "", "with --db-dsn: read the server's password from this file")
	fl.vf.bind(f)
	return cmd
}

// planFile plans file (as loaded from path): a block suite in VMs or a VM
// campaign, checked first as campaign run checks it (bad input is a
// usageError); a block suite on this host's drives has nothing to plan.
func planFile(ctx context.Context, a *app, fl *campaignRunFlags, path string, file *spec.File) (*scenarios.CampaignPlan, error) {
	switch {
	case file.Kind == spec.SuiteKind && !file.Suite.InVMs():
		return nil, usagef("%s is a block suite on this host's drives (targets:): it provisions no VMs, so there is nothing to plan", path)
	case file.Kind == spec.SuiteKind:
		opts, err := fl.options(ctx, a, path, file.Suite.Campaign())
		if err != nil {
			return nil, err
		}
		plan, err := scenarios.PlanSuite(ctx, file.Suite, opts)
		if err != nil {
			return nil, asUsage(err)
		}
		return plan, nil
	default:
		opts, err := fl.options(ctx, a, path, file.Campaign)
		if err != nil {
			return nil, err
		}
		opts.Plan = true
		checked, err := scenarios.Check(file.Campaign, opts)
		if err != nil {
			return nil, usageError{err}
		}
		if err := scenarios.FindData(ctx, checked); err != nil {
			return nil, usageError{err}
		}
		return scenarios.PlanCampaign(ctx, checked)
	}
}
