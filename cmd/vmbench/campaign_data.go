package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"vmbench/scenarios"
	"vmbench/scenarios/spec"
)

const campaignPrepareDataLong = `Make the pre-built data set of the campaign in FILE once, for campaign files
with 'data: {source: prebuilt}' to restore before each run instead of loading:

  1. a loader VM of the campaign's layout is cloned on its first datastore;
  2. the workload's data (the file's flags; with --simulate its simulate:
     sizes) is loaded into the loader VM's database from this host, and the
     workload's consistency checks are run on it;
  3. the loader VM's guest is shut down (its database server stops with it),
     and its data disk (data.disk, default db-test for sysbench, data-log
     for sqlserver) is copied, thin, to every datastore of the campaign as
     [ds] vmbench-data/<id>.vmdk, with its key file <id>.json beside it;
  4. the loader VM is destroyed, and the key file is written to data.dir
     (default "data").

The key is the tool, the flags that shape the data (sysbench's --tables,
--table-size, --auto-inc, --create-secondary, --rand-type, --rand-seed and
the random distributions' parameters; tpcc's --warehouses and --seed), the
database engine and version, and the data disk with its size. A run refuses
a data set whose key differs, one missing from a datastore its VMs go to,
and VMs whose engine differs from the key's.

A data set of the same key is kept when its data passes the checks (in
simulation) and its vDisk is on a datastore of the campaign: the datastores
that lack it get a copy. Otherwise, or with --force, it is made again. What a
prepare-data stopped by kill -9 left (its work directory in data.dir: the
loader VM, a partly loaded database) is removed by the next one.

With --simulate the vSphere steps run on the in-process simulator (its
datastore files kept in data.dir/simulated for later runs), and the data
goes into a database of its own, copied into each VM's before its run: for
SQLite a file <id>.db in data.dir, with --db-dsn a database vmbench_data_<id>
on that server.`

func newCampaignPrepareDataCmd(a *app) *cobra.Command {
	fl := &campaignRunFlags{}
	cmd := &cobra.Command{
		Use:   "prepare-data FILE",
		Short: "Make the campaign's pre-built data set once, for data: {source: prebuilt} to restore",
		Long:  campaignPrepareDataLong,
		Example: `  GOVC_URL=https://vcenter.example.com/sdk vmbench campaign prepare-data my-review.yaml
  vmbench campaign prepare-data scenarios/sysbench-8vm.yaml --simulate
  vmbench campaign prepare-data scenarios/sysbench-8vm.yaml --simulate --db-dsn mysql://root@127.0.0.1:3306/`,
		Args: exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := spec.LoadAny(args[0])
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return usagef("campaign file %s does not exist (the standard ones are in scenarios/)", args[0])
				}
				return asUsage(err)
			}
			if file.Kind == spec.SuiteKind {
				return usagef("%s is a block suite: it has no data to pre-build", args[0])
			}
			opts, err := fl.options(cmd.Context(), a, args[0], file.Campaign)
			if err != nil {
				return err
			}
			checked, err := scenarios.Check(file.Campaign, opts)
			if err != nil {
				return usageError{err}
			}
			ds, err := scenarios.PrepareData(cmd.Context(), checked)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s\n", ds.Key.ID())
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&fl.simulate, "simulate", false, "make the data set for --simulate runs: on the in-process vSphere simulator, with the file's simulate: sizes")
	f.StringVar(&fl.dsn, "db-dsn", "", "a MySQL/MariaDB server for the data set, as campaign run's --db-dsn (default: an SQLite file in data.dir)")
	f.StringVar(&fl.pwFile, "db-password-file", "", "with --db-dsn: read the server's password from this file")
	f.BoolVar(&fl.opts.Force, "force", false, "make the data set again even when one of its key is there (a damaged one, a new template)")
	fl.vf.bind(f)
	return cmd
}
