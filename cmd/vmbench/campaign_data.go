package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"vmbench/scenarios"
)

const campaignPrepareDataLong = `Make the pre-built data set of the campaign in FILE once: load the workload's
data (with the file's flags; with --simulate its simulate: sizes) into a
database of its own, run the workload's consistency checks on it and record
its key: the tool, the flags that shape the data (sysbench's --tables,
--table-size, --auto-inc, --create-secondary, --rand-seed; tpcc's --warehouses
and --seed) and the database engine and version. A campaign file with
'data: {source: prebuilt}' then restores a copy into every VM's database
before its run instead of loading, and refuses a data set whose key differs.

The data set goes in data.dir (default "data"): its key file <id>.json and,
for SQLite, its file <id>.db; with --db-dsn a database vmbench_data_<id> on
that server. A data set of the same key is kept as it is.

So far this runs with --simulate only: on vSphere the data set is a vDisk
restored with CopyVirtualDisk, which is not built yet.`

func newCampaignPrepareDataCmd(a *app) *cobra.Command {
	fl := &campaignRunFlags{}
	cmd := &cobra.Command{
		Use:   "prepare-data FILE",
		Short: "Make the campaign's pre-built data set once, for data: {source: prebuilt} to restore",
		Long:  campaignPrepareDataLong,
		Example: `  vmbench campaign prepare-data scenarios/sysbench-8vm.yaml --simulate
  vmbench campaign prepare-data scenarios/sysbench-8vm.yaml --simulate --db-dsn mysql://root@127.0.0.1:3306/`,
		Args: exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !fl.simulate {
				return usagef("prepare-data: give --simulate (on vSphere the data set is a vDisk, and restoring one is not built yet)")
			}
			file, err := scenarios.LoadAny(args[0])
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return usagef("campaign file %s does not exist (the standard ones are in scenarios/)", args[0])
				}
				return asUsage(err)
			}
			if file.Kind == scenarios.SuiteKind {
				return usagef("%s is a block suite: it has no data to pre-build", args[0])
			}
			opts, err := fl.options(cmd.Context(), a, args[0], file.Spec)
			if err != nil {
				return err
			}
			if _, _, err := scenarios.Check(file.Spec, opts); err != nil {
				return usageError{err}
			}
			ds, err := scenarios.PrepareData(cmd.Context(), file.Spec, opts)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s\n", ds.Key.ID())
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&fl.simulate, "simulate", false, "make the data set for --simulate runs, with the file's simulate: sizes (required so far)")
	f.StringVar(&fl.dsn, "db-dsn", "", "a MySQL/MariaDB server for the data set, as campaign run's --db-dsn (default: an SQLite file in data.dir)")
	f.StringVar(&fl.pwFile, "db-password-file", "", "with --db-dsn: read the server's password from this file")
	return cmd
}
