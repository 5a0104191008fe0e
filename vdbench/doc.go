// Package vdbench is vmbench's block-I/O suite: a native Go workload that
// speaks vdbench's vocabulary (sd, wd, rd; xfersize, rdpct, seekpct,
// iorate, curve, elapsed, interval, warmup, threads), registered as the
// vdbench tool of the workload contract (Tool, Config), with its records
// (RunRecord, merged across VMs by MergeVMRecords) and reports
// (WriteCurve, Summarize, the review row).
//
// It stands on two packages: parmfile reads vdbench parameter files of a
// subset into Params and Runs, and carries the review suite's profiles as
// such files (parmfile.Profiles); blockio runs the Runs on their targets
// (blockio.Execute). A Config is a parameter file or a profile on
// targets, with vdbench's -e, -i and -w overrides; the CLI commands are
// run, profiles and parse (tool_help.go).
//
// docs/vdbench.md is the reference: the parameter-file subset and its
// syntax, where vmbench differs from vdbench 5.04, curves, the profiles,
// the targets' safety checks, the I/O engines (psync, io_uring) and what
// each platform runs.
package vdbench
