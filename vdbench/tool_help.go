package vdbench

import "vmbench/workload"

// The verbs of the vdbench commands that only show information
// (Config.Info).
const (
	// VerbProfiles lists the built-in profiles, or prints one as a
	// parameter file.
	VerbProfiles workload.Verb = "profiles"
	// VerbParse checks a parameter file (or a profile) and prints what a
	// run of it would do.
	VerbParse workload.Verb = "parse"
)

// groupLong and groupExample are the vdbench command group's help.
const groupLong = `A native block-I/O workload that reads vdbench parameter files (sd=, wd=, rd=; the
subset 'vmbench vdbench parse' accepts) and carries the review suite's profiles
as such files: the four corners, SQL, Oracle and VDI ('vmbench vdbench profiles
NAME' prints one with the source of each number; docs/vdbench.md, "The block
suite", describes the suite).

Sizes are binary, as in vdbench: 4k = 4KiB = 4096 bytes. k, m, g, t and the IEC
forms KiB, MiB, GiB, TiB are accepted; the SI forms kB, MB, GB, TB are refused
(the error says what to write). This holds in parameter files and in the
size:s of a block-suite campaign file.

Each run prints vdbench's interval lines, then per point the requested and
achieved IOPS, MB/s, the service time (mean, p50, p99, max) and the latency from
the intended start, and the review summary: start IOPS and latency, where the
mean latency crosses 100 µs and 1 ms, and the peak.

Writing to a target that carries a partition table or file system is refused
unless --force; a mounted or otherwise busy device is always refused. Writing to
(or extending) an existing file that vmbench did not make is refused unless
--overwrite-files: a file vmbench creates starts with its label, so it is used
again without the flag. The whole
suite on several targets runs from a campaign file:
'vmbench campaign run scenarios/vdbench-suite.yaml'.`

const groupExample = `  vmbench vdbench profiles
  vmbench vdbench profiles sql --target /dev/nvme0n1 > sql.vdb
  vmbench vdbench parse sql.vdb
  vmbench vdbench run --profile 4k-random-read --target /dev/nvme0n1 --target /dev/nvme1n1
  vmbench vdbench run sql.vdb -o output -e 30 -i 5 -w 10
  vmbench vdbench run -f sql.vdb -o output        # as vdbench -f parmfile -o output`

// runCommand is vdbench run: it runs a parameter file or a profile (Config.RunDir).
var runCommand = workload.Command{
	Name:  workload.VerbRun,
	Short: "Run a parameter file or a built-in profile",
	Long: `Run every rd of the parameter FILE (or -f FILE, as vdbench -f; or --profile on
--target), in order. Each point prints vdbench's interval lines as it runs; each
run then prints its curve table and review summary.

Before anything is created, every run is checked against this host and the
targets: the I/O threads of a run (threads=, forthreads=, over its sds), its sds,
iorate= and the report intervals it keeps must fit what the host can do (its OS
threads, memory, open files and CPUs; the error names the bound and why); each
target must exist (a file may be new when its sd has size=), and a target that
will be written must not be mounted or busy, nor carry a partition table or
file-system signature unless --force, nor be an existing file that vmbench did
not make unless --overwrite-files (its contents would be destroyed); the files
to create or extend must fit in the free space of their file systems.

A file target that is missing or smaller than size= is then created and
preformatted (written once in full, with progress lines; its first 512 bytes,
which no run writes, are vmbench's label); Ctrl-C stops it, and a preformat that
fails or is stopped removes the file it created. A completed file is kept after
the run, as vdbench keeps it, so the next run does not write it again; it is
removed when the run fails before measuring anything.

Results go to -o/--results-dir (default output/, as vdbench's -o): per run
<run>.json (each point's Result, merged over the targets, with the per-target
Results), <run>.svg (mean service time and latency from the intended start
against achieved IOPS) and, with several targets, <run>-targets.svg (one curve
per target); summary.txt (every curve table and summary) and parmfile.vdb (the
parameters as run). Runs that would share a name (a for-loop that repeats a
value) get _rep2, _rep3... Files are written atomically; after Ctrl-C they hold
the points completed and are marked interrupted.`,
	Example: `  vmbench vdbench run --profile 4k-random-read --target /dev/nvme0n1 -o results/r7415
  vmbench vdbench run -f my.vdb -o output
  vmbench vdbench run my.vdb --force -e 60 -i 5 -w 10`,
	Arg: fileArg,
}

// profilesCommand is vdbench profiles [NAME].
var profilesCommand = workload.Command{
	Name:  VerbProfiles,
	Short: "List the built-in profiles, or print one as a parameter file",
	Long: `Without NAME, list the review suite's profiles: name, title, threads per target
and mix; those marked APPROX define a mix the reviews do not publish, from
public facts, each number with its source in the file.

With NAME, print that profile as a parameter file, with its sd line for each
--target (or the template line sd=sd1,lun=$target to edit), ready to change and
run with 'vmbench vdbench run FILE'.`,
	Example: `  vmbench vdbench profiles
  vmbench vdbench profiles oracle-90-10 --target /dev/nvme0n1 --target /dev/nvme1n1 > oracle.vdb`,
	Arg: workload.Arg{Name: "NAME"},
}

// parseCommand is vdbench parse [FILE | -f FILE].
var parseCommand = workload.Command{
	Name:  VerbParse,
	Short: "Check a parameter file and print what 'vdbench run' would do",
	Long: `Parse and validate the parameter FILE (or --profile, on --target when given) and
print what 'vmbench vdbench run' would do with it: the storage, every expanded
run with its workloads, rates and times, and the total time. Every problem is
reported with its file, line and keyword. No target is opened.`,
	Example: `  vmbench vdbench parse my.vdb
  vmbench vdbench parse --profile sql --target /dev/nvme0n1 -e 30`,
	Arg: fileArg,
}

// fileArg is the parameter FILE of run and parse, or -f FILE.
var fileArg = workload.Arg{Name: "FILE", Flag: "-f"}
