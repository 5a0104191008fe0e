// Package parmfile is vdbench's parameter-file format, files in and typed
// values out: it reads parameter files of the subset vmbench runs (Parse:
// the sd, wd and rd definitions as Params; Params.Runs: each rd's
// for-loops expanded), writes them back (Text), and carries the review
// suite's built-in profiles as such files (Profiles).
//
// Parse and ParseFile read a file's storage (SD), workload (WD) and run
// (RD) definitions into Params, with every default applied. Validate
// checks the definitions against each other; Params.Runs expands the
// for-loops of each rd into Runs, with wildcards resolved and the loop
// values applied (forthreads to every SD of the run, forxfersize and
// forrdpct to every WD); Override applies vdbench's -e, -i and -w.
// Text writes Params back as a parameter file and Describe says in words
// what a run of it does. Profiles are the review suite's tests as such
// files. SpanOf and MinSize place a WD on an SD of a target of a given
// capacity and logical block size, as size=, range= and xfersize= say.
// Sizes are binary (ParseSize, FormatSize); times are whole seconds.
//
// Every problem of a file is a *ParseError naming its file, line and
// keyword; Parse and Validate report all of them at once, joined with
// errors.Join. The package opens no target and runs nothing (package
// blockio runs the Runs). docs/vdbench.md is the reference: the subset
// and its syntax, where vmbench differs from vdbench 5.04, and the
// profiles.
package parmfile
