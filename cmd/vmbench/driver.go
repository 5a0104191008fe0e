package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/scenarios"
)

// What the campaign drivers (tpccDriver, sysbenchDriver) share.

// refuseConnectionFlags returns an error for every argument in args that
// sets one of names (with dashes or underscores, one or two leading
// dashes): a campaign sets those itself for each VM.
func refuseConnectionFlags(args []string, names []string) []error {
	var errs []error
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if slices.Contains(names, strings.ReplaceAll(name, "_", "-")) {
			errs = append(errs, fmt.Errorf("--%s: set by the campaign for each VM (database: block, or --db-dsn with --simulate); remove it from the workload flags", name))
		}
	}
	return errs
}

// dialectConfigurer is a workload's Config (tpcc.Config, sysbench.Config).
type dialectConfigurer interface{ DialectConfig() dialect.Config }

// onDatabase runs op (dialect.CreateDatabase or dialect.DropDatabase) on
// the database of cfg, the Config a driver built for a campaign VM's DB,
// unless building it failed with err.
func onDatabase(ctx context.Context, op func(context.Context, dialect.Config) error, cfg dialectConfigurer, err error) error {
	if err != nil {
		return err
	}
	return op(ctx, cfg.DialectConfig())
}

// withRunHooks returns rc with a campaign's start time, labels and
// callbacks.
func withRunHooks(rc oltp.RunConfig, hooks scenarios.RunHooks) oltp.RunConfig {
	rc.StartAt, rc.Labels, rc.OnInterval, rc.OnPhase = hooks.StartAt, hooks.Labels, hooks.OnInterval, hooks.OnPhase
	return rc
}
