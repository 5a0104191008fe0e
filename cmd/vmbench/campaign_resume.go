package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"vmbench/scenarios"
	"vmbench/scenarios/rundir"
)

// campaignResumeLong is campaign resume's help text.
const campaignResumeLong = `Go on with a campaign that stopped (kill -9, a crash, a lost connection) after
its VMs were provisioned, from its results directory DIR (<name>-<time>-<id>.incomplete).
DIR/` + rundir.JournalFile + ` records each step the campaign finished (the VMs
as provisioned: names, MoRefs, IPs), DIR/` + rundir.ManifestFile + ` every object it created.

Resume takes DIR's run lock, connects to the same vSphere (the URL from --url or
GOVC_URL, else the recorded one; credentials from GOVC_* or the flags: the
record holds none), finds the campaign's VMs by its tag and checks they are the
recorded ones. Nothing is provisioned again. When the run had finished on every
VM it collects the Results written; otherwise it makes every VM's database
afresh (a killed prepare or run leaves data that is not the protocol's), sets
the agents up again (driver guest), prepares the data and runs again from a
common start. Then it collects, writes the review, completes DIR (it loses its
.incomplete suffix) and tears down as 'campaign run' does, unless --keep-vms.

A campaign run with --simulate alone had its VMs in its own in-process
simulator, which ended with it: there is nothing to resume, and resume says so.
One run with --simulate --url (a vcsim of one's own) resumes against that vcsim.

Exit status 2, with nothing changed, when DIR is complete, still running (its
campaign holds DIR/` + rundir.LockFile + `), lacks its journal or campaign.yaml, stopped before
its VMs were provisioned, or its VMs are gone; 'campaign teardown DIR' then
removes what it left.`

// campaignResumeExample is campaign resume's examples.
const campaignResumeExample = `  vmbench campaign resume results/sysbench-8vm-20260102T150405Z-a1b2.incomplete
  vmbench campaign resume results/tiny-20260102T150405Z-a1b2.incomplete --url https://user:pass@127.0.0.1:8989/sdk -k`

func newCampaignResumeCmd(a *app) *cobra.Command {
	fl := &campaignRunFlags{}
	cmd := &cobra.Command{
		Use:     "resume DIR",
		Short:   "Go on with a stopped campaign from its results directory",
		Long:    campaignResumeLong,
		Example: campaignResumeExample,
		Args:    exactArgs(1, "DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := scenarios.ParseGuests(fl.guests); err != nil {
				return usageError{err}
			}
			r, err := scenarios.OpenResume(args[0])
			if err != nil {
				return asUsage(err)
			}
			if fl.simulate && !r.Simulated {
				return usagef("--simulate: the campaign of %s ran against vSphere, not simulated; leave --simulate out", r.Dir)
			}
			fl.simulate = r.Simulated
			opts, err := fl.options(cmd.Context(), a, r.Dir+"/campaign.yaml", r.Spec)
			if err != nil {
				return err
			}
			opts.VSphere = fl.vf.config(a) // GOVC_* and the flags; the recorded URL when none is given
			checked, err := r.Check(opts)
			if err != nil {
				return usageError{err}
			}
			if err := r.CheckData(cmd.Context(), checked); err != nil {
				return usageError{err}
			}
			out, err := scenarios.Resume(cmd.Context(), r, checked)
			if errors.Is(err, rundir.ErrRunning) {
				return asUsage(err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "\nresults: %s\n", out.Dir)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&fl.simulate, "simulate", false, "accepted for a campaign that ran with --simulate (the directory records it); its vcsim is given with --url")
	bindGuests(f, &fl.guests)
	f.StringVar(&fl.pwFile, "db-password-file", "", "for a campaign whose databases were on a --db-dsn server without a password: read it from this file (mode 600); else $<database.password-env>, else $MYSQL_PWD, $PGPASSWORD or $SQLCMDPASSWORD by the server's driver")
	f.BoolVar(&fl.opts.KeepVMs, "keep-vms", false, "leave the VMs (and databases) in place at the end")
	f.StringVar(&fl.opts.AgentBinary, "agent-binary", "", "with driver guest: the vmbench executable to upload when the guests' OS/arch differ from this one's; default this executable")
	fl.vf.bindConnection(f)
	return cmd
}
