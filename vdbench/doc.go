// Package vdbench is vmbench's block-I/O suite: a native Go workload that
// speaks vdbench's vocabulary (sd, wd, rd; xfersize, rdpct, seekpct,
// iorate, curve, elapsed, interval, warmup, threads), reads vdbench
// parameter files of the subset below, and carries the review suite's
// profiles as such files.
//
// # Model
//
// Params holds the storage (SD), workload (WD) and run (RD) definitions of
// a parameter file, with every default applied. Params.Runs expands the
// for-loops of each rd into Runs, with wildcards resolved and the loop
// values applied (forthreads to every SD of the run, forxfersize and
// forrdpct to every WD). The engine executes Runs.
//
// # Parameter files
//
// Parse reads the subset vmbench runs:
//
//	sd=name,lun=,size=,range=(lo,hi),threads=,openflags=,hitarea=
//	wd=name,sd=,xfersize=,rdpct= (readpct=, wrpct=),seekpct=,rhpct=,whpct=,range=,skew=
//	rd=name,wd=,iorate=,curve=,elapsed=,interval=,warmup=,distribution=,stopcurve=,
//	   forxfersize=,forthreads=,forrdpct= (or xfersize=, threads=, rdpct=, as vdbench)
//	debug=, data_errors=   accepted and ignored (HCIBench writes both), said by Describe
//
// The syntax is vdbench's. Definitions come in the order general
// parameters, sd, wd, rd. Each is keyword=value pairs joined by commas; a
// definition continues on the next line when its line ends with a comma or
// the next line starts with one. Lines starting with *, # or / are
// comments, a line starting with eof ends the file, and after a blank the
// rest of a line must be a comment starting with * or # (vdbench ignores
// whatever follows a blank; vmbench refuses it, so nothing is dropped
// silently). Keywords may be abbreviated to any unambiguous prefix (xf=4k);
// an abbreviation that could mean several keywords, vdbench's unsupported
// ones included, is an error listing them. A value list is in parentheses,
// (4k,50,8k,50); numeric lists also take vdbench's ranges (10-120,10) and
// (4k-64k,d), d for doubling. A definition named default (sd=default,...)
// sets defaults for the definitions of its kind that follow. Names in
// sd= and wd= lists may be wildcards: sd*, *. Sizes are bytes or take the
// binary suffixes k, m, g, t or KiB, MiB, GiB, TiB; SI units (kB, MB, GB,
// TB) are refused (ParseSize); elapsed, interval and warmup are
// seconds or take m (minutes) or h; stopcurve is in milliseconds.
//
// Anything outside the subset is an error naming file, line and keyword:
// hd=, fsd=, fwd=, include=, compratio=, dedupratio=, offset=, hotband=,
// forseekpct=, and the other vdbench keywords vmbench does not run. Parse
// reports every problem of a file at once, Validate every inconsistency
// between definitions (unknown sd or wd names, skews over 100%, elapsed
// under two intervals or not a multiple of interval, warmup not a multiple
// of interval, hit I/O to an sd with hitarea=0).
//
// # Semantics and where vmbench differs from vdbench 5.04
//
//   - Defaults are vdbench's: threads=8 per sd, hitarea=1m, xfersize=4k,
//     rdpct=100, seekpct=100 (random), elapsed=30, interval
//     min(elapsed/2, 60 s), warmup=0, distribution=exponential, curve
//     points 10,50,70,80,90,100. One exception: openflags defaults to
//     o_direct (vdbench opens luns buffered); openflags=none is buffered.
//   - warmup runs before elapsed and is not measured, so a run lasts
//     warmup+elapsed. Without warmup, the first interval of elapsed is left
//     out of the averages.
//   - threads is per sd and shared by the wds on it. A wd's range is a
//     percentage of each sd's span (its size and range). skew is a wd's
//     share of the run's I/O rate; wds without one share the rest equally.
//   - For-loops nest in the order given, the first outermost; a list of
//     rates in iorate= is the innermost loop and stays inside one Run.
//   - range values above 100 (which vdbench folds back) are refused, and
//     transfer sizes must be multiples of 512 bytes.
//
// # Profiles
//
// Profiles returns the review suite as parameter files (the README's
// section "The block suite (vdbench-style)"): the four corners 4k-random-read (128 threads per target),
// 4k-random-write (64), 64k-sequential-read (16) and 64k-sequential-write
// (8), with -newer variants at the newer reviews' counts (128, 32, 16);
// sql, sql-90-10, sql-80-20, oracle, oracle-90-10, oracle-80-20; and
// vdi-fc-boot, vdi-fc-initial-login, vdi-fc-monday-login and the three
// vdi-lc- (linked clone) ones. Each runs over 25% of every target with
// iorate=curve and curve points 10 to 120 in steps of 10. The reviews do
// not publish the SQL, Oracle and VDI mixes: those profiles are marked
// APPROXIMATION and define a mix from public facts, each number with its
// source (or "assumption") in a comment. Profile.Render writes a profile
// for a list of targets, Profile.Params parses it.
//
// # Platforms
//
// Linux runs everything: block devices and files, O_DIRECT, the psync
// engine (one pread/pwrite per I/O) and io_uring, file creation and
// preformat, the in-use and free-space checks, host limits from rlimits.
// Windows runs file luns that already exist at size= or more: direct I/O
// (the o_direct default) is FILE_FLAG_NO_BUFFERING with a 4096-byte block
// size, o_dsync/o_sync are FILE_FLAG_WRITE_THROUGH, and each I/O is a
// positioned os.File ReadAt or WriteAt on a handle of its own (see
// OpenTarget in target_windows.go). Raw disks, creating or extending a
// file, clear_cache without o_direct and --ioengine io_uring are refused
// there with an error naming the platform or what to use instead; host
// limits keep their defaults. Other systems (macOS, the BSDs) parse,
// describe and simulate but refuse every target.
package vdbench
