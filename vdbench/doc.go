// Package vdbench is vmbench's block-I/O suite: a native Go workload that
// speaks vdbench's vocabulary (sd, wd, rd; xfersize, rdpct, seekpct,
// iorate, curve, elapsed, interval, warmup, threads), reads vdbench
// parameter files of a subset (Parse, Validate), and carries the review
// suite's profiles as such files (Profiles).
//
// Params holds the storage (SD), workload (WD) and run (RD) definitions of
// a parameter file, with every default applied. Params.Runs expands the
// for-loops of each rd into Runs, with wildcards resolved and the loop
// values applied (forthreads to every SD of the run, forxfersize and
// forrdpct to every WD). The engine executes Runs.
//
// docs/vdbench.md is the reference: the parameter-file subset and its
// syntax, where vmbench differs from vdbench 5.04, curves, the profiles,
// the targets' safety checks, the I/O engines (psync, io_uring) and what
// each platform runs.
package vdbench
