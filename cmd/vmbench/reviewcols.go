package main

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"vmbench/oltp"
	"vmbench/report"
	"vmbench/sysbench"
	"vmbench/tpcc"
	"vmbench/workload"
)

// A bridge, until sysbench and tpcc implement the workload contract and
// register themselves: `vmbench report` (scenarios.Render) reaches a
// campaign's tool through the registry alone (workload.Lookup, Parse and
// Reviewer), so stand-ins for the two are registered here that parse the
// tool's own flags and give tpcc's review columns. A tool that registers
// itself wins (its package's init runs before this one), and this file
// goes with the bridge.
func init() {
	bridgeTool("sysbench", func(fs *pflag.FlagSet) { c := sysbench.DefaultConfig(); c.BindFlags(fs) }, nil)
	bridgeTool("tpcc", func(fs *pflag.FlagSet) { c := tpcc.DefaultConfig(); c.BindFlags(fs) }, tpccReviewColumns())
}

// bridgeTool registers a stand-in for the tool name unless it is
// registered.
func bridgeTool(name string, bind func(*pflag.FlagSet), cols []workload.Column) {
	if _, err := workload.Lookup(name); err == nil {
		return
	}
	workload.Register(reviewTool{name: name, bind: bind, cols: cols})
}

// reviewTool is a stand-in tool that parses a tool's flags and gives its
// review columns, and runs nothing.
type reviewTool struct {
	name string
	bind func(*pflag.FlagSet)
	cols []workload.Column
}

func (t reviewTool) Describe() workload.Descriptor { return workload.Descriptor{Name: t.name} }
func (t reviewTool) NewConfig() workload.Config    { return reviewConfig{t} }

// reviewConfig is reviewTool's Config: a workload.Reviewer.
type reviewConfig struct{ t reviewTool }

var errReviewOnly = errors.New("this stand-in of the tool only reads its campaign results back")

func (c reviewConfig) BindFlags(fs *pflag.FlagSet)                                   { c.t.bind(fs) }
func (c reviewConfig) Complete(string, func(string) string, func(string) bool) error { return nil }
func (c reviewConfig) Validate() error                                               { return nil }
func (c reviewConfig) Bounds() oltp.RunConfig                                        { return oltp.RunConfig{} }
func (c reviewConfig) Flags() map[string]string                                      { return nil }
func (c reviewConfig) Prepare(context.Context, workload.Env) error                   { return errReviewOnly }
func (c reviewConfig) Cleanup(context.Context, workload.Env) error                   { return errReviewOnly }
func (c reviewConfig) ReviewColumns() []workload.Column                              { return c.t.cols }
func (c reviewConfig) Run(context.Context, workload.Env) (*workload.Output, error) {
	return nil, errReviewOnly
}

// tpccReviewColumns are the tpmC and NOPM columns of a TPC-C campaign's
// review table, from a VM's Result or the merged one (tpcc.ComputeFigures).
// A bridge: once tpcc's Config is a workload.Reviewer, the campaign asks
// it and this goes.
func tpccReviewColumns() []workload.Column {
	perMinute := func(v func(tpcc.Figures) float64) func(*oltp.Result, bool) string {
		return func(r *oltp.Result, _ bool) string { return report.Grouped(v(tpcc.ComputeFigures(r)), 1) }
	}
	return []workload.Column{
		{Header: "tpmC", Cell: perMinute(func(f tpcc.Figures) float64 { return f.TpmC }),
			Note: "tpmC: New-Orders per minute (intended rollbacks included); NOPM: committed New-Orders per minute from sum(d_next_o_id)."},
		{Header: "NOPM", Cell: perMinute(func(f tpcc.Figures) float64 { return f.NOPM })},
	}
}
