package dataset

import (
	"context"
	"fmt"
	"io"

	"vmbench/dialect"
	"vmbench/workload"
)

// This file is a data set's data in databases: loaded once into the
// database it is made from, put into each VM's before a run.

// Load loads the data of cfg (a workload's Config, connected to the
// database the data set is made in): it creates cfg's database
// (workload.DatabaseOwner), prepares the data and runs the workload's
// consistency checks (workload.Checker), logging to log. Errors are the
// workload's.
func Load(ctx context.Context, cfg workload.Config, log io.Writer) error {
	if owner, ok := cfg.(workload.DatabaseOwner); ok {
		if err := owner.CreateDatabase(ctx); err != nil {
			return err
		}
	}
	if err := cfg.Prepare(ctx, workload.Env{Log: log}); err != nil {
		return err
	}
	if ch, ok := cfg.(workload.Checker); ok {
		return ch.Check(ctx, workload.Env{Log: log})
	}
	return nil
}

// Restore puts the data set into one VM's database dst. Where the
// databases stand apart (not inGuests) it copies the data set's own
// database, on server (nil: SQLite; Config), into dst: what the VM's
// restored vDisk holds on vSphere. Where they are in the guests the VM's
// vDisk was restored before it powered on, and Restore checks that dst's
// engine is the data set's: another is an error saying the data set is
// refused.
func (d *Set) Restore(ctx context.Context, server *dialect.Config, dst dialect.Config, inGuests bool) error {
	if !inGuests {
		return dialect.CopyDatabase(ctx, d.Config(server), dst)
	}
	engine, err := dialect.ServerVersion(ctx, dst.WithDatabase(""))
	if err != nil {
		return fmt.Errorf("reading the engine: %w", err)
	}
	if engine != d.Key.Engine {
		return fmt.Errorf("the VM's engine is %s, and data set %s was made on %s: refused, not used (make it again with vmbench campaign prepare-data on this template)", engine, d.Key.ID(), d.Key.Engine)
	}
	return nil
}
