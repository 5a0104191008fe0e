package main

import (
	"vmbench/oltp"
	"vmbench/report"
	"vmbench/tpcc"
	"vmbench/workload"
)

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
