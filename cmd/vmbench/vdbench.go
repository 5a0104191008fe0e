package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vmbench/oltp"
	"vmbench/report"
	"vmbench/vdbench"
)

func init() { registerGroup(newVdbenchCmd) }

func newVdbenchCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vdbench run|profiles|parse",
		Short: "vdbench-style block I/O: parameter files, the review suite's profiles, latency curves",
		Long: `A native block-I/O workload that reads vdbench parameter files (sd=, wd=, rd=; the
subset 'vmbench vdbench parse' accepts) and carries the review suite's profiles
as such files: the four corners, SQL, Oracle and VDI ('vmbench vdbench profiles
NAME' prints one with the source of each number; the README's section "The block
suite (vdbench-style)" describes the suite).

Sizes are binary, as in vdbench: 4k = 4KiB = 4096 bytes. k, m, g, t and the IEC
forms KiB, MiB, GiB, TiB are accepted; the SI forms kB, MB, GB, TB are refused
(the error says what to write). This holds in parameter files and in the
size:s of a block-suite campaign file.

Each run prints vdbench's interval lines, then per point the requested and
achieved IOPS, MB/s, the service time (mean, p50, p99, max) and the latency from
the intended start, and the review summary: start IOPS and latency, where the
mean latency crosses 100 µs and 1 ms, and the peak.

Writing to a target that carries a partition table or file system is refused
unless --force; a mounted or otherwise busy device is always refused. The whole
suite on several targets runs from a campaign file:
'vmbench campaign run scenarios/vdbench-suite.yaml'.`,
		Example: `  vmbench vdbench profiles
  vmbench vdbench profiles sql --target /dev/nvme0n1 > sql.vdb
  vmbench vdbench parse sql.vdb
  vmbench vdbench run --profile 4k-random-read --target /dev/nvme0n1 --target /dev/nvme1n1
  vmbench vdbench run sql.vdb -o output -e 30 -i 5 -w 10
  vmbench vdbench run -f sql.vdb -o output        # as vdbench -f parmfile -o output`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newVdbenchRunCmd(a), newVdbenchProfilesCmd(a), newVdbenchParseCmd(a))
	return cmd
}

// secondsFlag is a vdbench time option (-e, -i, -w): whole seconds, or
// with m or h.
type secondsFlag struct {
	d   time.Duration
	set bool
}

func (s *secondsFlag) String() string {
	if !s.set {
		return ""
	}
	return s.d.String()
}

func (s *secondsFlag) Set(v string) error {
	d, err := vdbench.ParseSeconds(v)
	if err != nil {
		return err
	}
	s.d, s.set = d, true
	return nil
}

func (s *secondsFlag) Type() string { return "seconds" }

func (s *secondsFlag) ptr() *time.Duration {
	if !s.set {
		return nil
	}
	return &s.d
}

// vdbenchSource is what run and parse read: a parameter FILE, or a
// built-in --profile on --target(s), with vdbench's -e, -i, -w overrides.
type vdbenchSource struct {
	files                     []string // -f
	profile                   string
	targets                   []string
	threads                   int
	elapsed, interval, warmup secondsFlag
}

func (s *vdbenchSource) bind(f *pflag.FlagSet) {
	f.StringArrayVarP(&s.files, "file", "f", nil, "the parameter FILE, as vdbench -f (instead of giving it as an argument)")
	f.StringVar(&s.profile, "profile", "", "run a built-in profile instead of a parameter FILE (see 'vmbench vdbench profiles')")
	f.StringArrayVar(&s.targets, "target", nil, "with --profile: a block device or file to run on (repeat for several)")
	f.IntVar(&s.threads, "threads", 0, "with --profile: threads (outstanding I/Os) per target; 0 = the profile's own")
	f.VarP(&s.elapsed, "elapsed", "e", "replace every rd's elapsed= (seconds, as vdbench -e)")
	f.VarP(&s.interval, "interval", "i", "replace every rd's interval= (seconds, as vdbench -i)")
	f.VarP(&s.warmup, "warmup", "w", "replace every rd's warmup= (seconds, as vdbench -w)")
}

// params reads the parameters and expands their runs; every problem is a
// usage error naming the file, line, flag or value.
func (s *vdbenchSource) params(cmd *cobra.Command, args []string) (*vdbench.Params, []vdbench.Run, error) {
	path := cmd.CommandPath()
	switch {
	case len(s.files) > 1:
		return nil, nil, usagef("%s: -f given %d times; vmbench reads one parameter file (vdbench reads several -f files as one: join them into one file)", path, len(s.files))
	case len(s.files) == 1 && len(args) == 1:
		return nil, nil, usagef("%s: the parameter file is given twice, as %s and with -f %s: give it once, either way", path, args[0], s.files[0])
	case len(s.files) == 1 && s.files[0] == "":
		return nil, nil, usagef("%s: -f: empty file name", path)
	case len(s.files) == 1:
		args = s.files
	}
	var p *vdbench.Params
	var err error
	switch {
	case len(args) == 1 && s.profile != "":
		return nil, nil, usagef("%s: give a parameter FILE (or -f FILE) or --profile, not both", path)
	case len(args) == 1:
		if len(s.targets) > 0 || s.threads != 0 {
			return nil, nil, usagef("%s: --target and --threads go with --profile; a parameter file names its targets in sd=...,lun= and threads in sd=...,threads=", path)
		}
		p, err = vdbench.ParseFile(args[0])
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, usagef("%s: parameter file %s does not exist", path, args[0])
		}
	case s.profile != "":
		prof, perr := vdbench.ProfileByName(s.profile)
		if perr != nil {
			return nil, nil, usagef("%s: --profile: %v", path, perr)
		}
		if s.threads < 0 {
			return nil, nil, usagef("%s: --threads=%d: at least 1, or 0 for the profile's %d", path, s.threads, prof.Threads)
		}
		if len(s.targets) == 0 {
			return nil, nil, usagef("%s: --profile %s needs --target (a block device or file; repeat for several)", path, prof.Name)
		}
		p, err = prof.Params(s.targets, s.threads)
	default:
		return nil, nil, usagef("%s: takes a parameter FILE, -f FILE or --profile NAME (see '%s --help')", path, path)
	}
	if err != nil {
		return nil, nil, asUsage(err)
	}
	o := vdbench.Overrides{Elapsed: s.elapsed.ptr(), Interval: s.interval.ptr(), Warmup: s.warmup.ptr()}
	if err := p.Override(o); err != nil {
		if o.Elapsed != nil || o.Interval != nil || o.Warmup != nil {
			return nil, nil, usagef("%s: with --elapsed, --interval or --warmup: %v", path, err)
		}
		return nil, nil, usagef("%s: %v", path, err)
	}
	runs, err := p.Runs()
	if err != nil {
		return nil, nil, asUsage(err)
	}
	return p, runs, nil
}

func maxOneArg(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usagef("%s: takes at most one parameter FILE (got %d arguments; see '%s --help')", cmd.CommandPath(), len(args), cmd.CommandPath())
	}
	return nil
}

func newVdbenchRunCmd(a *app) *cobra.Command {
	var (
		src   vdbenchSource
		force bool
		dir   string
	)
	cmd := &cobra.Command{
		Use:   "run [FILE | -f FILE]",
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
file-system signature unless --force; the files to create or extend must fit in
the free space of their file systems.

A file target that is missing or smaller than size= is then created and
preformatted (written once in full, with progress lines); Ctrl-C stops it, and a
preformat that fails or is stopped removes the file it created. A completed file
is kept after the run, as vdbench keeps it, so the next run does not write it
again; it is removed when the run fails before measuring anything.

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
		Args: maxOneArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			params, runs, err := src.params(cmd, args)
			if err != nil {
				return err
			}
			source := params.File
			if src.profile != "" {
				source = "--profile " + src.profile
			}
			if err := checkBeforeRun(source, src.profile == "", runs, force); err != nil {
				return err
			}
			_, statErr := os.Stat(dir)
			if err := checkResultsDir(dir); err != nil {
				return err
			}
			parmfile := filepath.Join(dir, "parmfile.vdb")
			// undo removes what this command wrote when nothing was measured.
			undo := func() {
				os.Remove(parmfile)
				if statErr != nil {
					os.Remove(dir) // only when empty: never anything else
				}
			}
			if err := oltp.WriteFileAtomic(parmfile, []byte(params.Text())); err != nil {
				undo()
				return err
			}
			fmt.Fprintf(a.stderr, "vdbench: %d run(s), results in %s\n", len(runs), dir)
			created, err := vdbench.CreateFiles(cmd.Context(), runs, force, a.stderr)
			if err != nil {
				undo()
				return err
			}
			nothingMeasured := func() {
				vdbench.RemoveCreated(created)
				undo()
			}
			var summary bytes.Buffer
			bases := runFileBases(runs)
			for i, run := range runs {
				var labels map[string]string
				if src.profile != "" {
					labels = map[string]string{"profile": src.profile}
				}
				cr, runErr := vdbench.Execute(cmd.Context(), run, vdbench.Options{Force: force, Out: a.stdout, Labels: labels})
				if cr == nil {
					if i == 0 {
						nothingMeasured()
					}
					return runErr
				}
				title := run.Name
				if src.profile != "" {
					prof, _ := vdbench.ProfileByName(src.profile)
					title = prof.Title
				}
				files, err := writeRunResults(dir, bases[i], title, run, cr, runErr, &summary)
				if err == nil {
					err = oltp.WriteFileAtomic(filepath.Join(dir, "summary.txt"), summary.Bytes())
				}
				fmt.Fprintf(a.stdout, "\n%s", lastRun(summary.String()))
				if err != nil {
					return errors.Join(runErr, fmt.Errorf("writing results: %w", err))
				}
				fmt.Fprintf(a.stderr, "results: %s\n", strings.Join(files, ", "))
				if runErr != nil {
					return runErr
				}
			}
			return nil
		},
	}
	src.bind(cmd.Flags())
	cmd.Flags().BoolVar(&force, "force", false, "write to targets that carry a partition table or file-system signature (never to mounted or busy devices)")
	cmd.Flags().StringVarP(&dir, "results-dir", "o", "output", "directory for the results (created if missing, as vdbench's -o)")
	return cmd
}

// checkBeforeRun checks runs before anything is created: the host's
// bounds (threads, sds, iorate, intervals, total time), the targets
// (exist, not in use, signatures unless force) and the free space for the
// files the runs create or extend. source names the parameters in the
// errors (a parameter file, whose lines they name when lines is set, or
// "--profile NAME"); every problem is a usage error.
func checkBeforeRun(source string, lines bool, runs []vdbench.Run, force bool) error {
	file := ""
	if lines {
		file = source
	}
	if err := vdbench.CheckBounds(file, runs, vdbench.ReadHostLimits()); err != nil {
		if file == "" {
			return usageError{fmt.Errorf("%s: %w", source, err)}
		}
		return usageError{err}
	}
	if err := vdbench.CheckTargets(runs, force); err != nil {
		return asUsage(err)
	}
	if err := vdbench.CheckSpace(runs); err != nil {
		return usageError{fmt.Errorf("%s: %w", source, err)}
	}
	return nil
}

// runFileBases returns the base name of each run's result files
// (<base>.json, <base>.svg, <base>-targets.svg): the run's name as a file
// name, with a suffix _repN when a file of an earlier run (or
// summary.txt, parmfile.vdb) already has that name, compared without
// case. Params.Runs names runs apart; this also keeps "x-targets.svg" of
// a run x apart from the files of a run named x-targets.
func runFileBases(runs []vdbench.Run) []string {
	used := map[string]bool{"summary.txt": true, "parmfile.vdb": true}
	files := func(base string) []string {
		base = strings.ToLower(base)
		return []string{base + ".json", base + ".svg", base + "-targets.svg"}
	}
	taken := func(base string) bool {
		return slices.ContainsFunc(files(base), func(f string) bool { return used[f] })
	}
	bases := make([]string, len(runs))
	for i, r := range runs {
		base := vdbench.RunName(r.Name)
		for n := 2; taken(base); n++ {
			base = fmt.Sprintf("%s_rep%d", vdbench.RunName(r.Name), n)
		}
		for _, f := range files(base) {
			used[f] = true
		}
		bases[i] = base
	}
	return bases
}

// runMark separates the runs in summary.txt.
const runMark = "\n=== "

// lastRun returns the last run's part of the summary text.
func lastRun(s string) string {
	if i := strings.LastIndex(s, runMark); i >= 0 {
		return s[i+1:]
	}
	return s
}

// writeRunResults writes a run's <base>.json and charts into dir and
// appends its curve table and summary to summary; it returns the files
// written.
func writeRunResults(dir, base, title string, run vdbench.Run, cr *vdbench.CurveResult, runErr error, summary io.Writer) ([]string, error) {
	rec, err := vdbench.NewRunRecord(run, cr, runErr)
	if err != nil {
		return nil, err
	}
	head := run.Name
	if title != run.Name {
		head += " (" + title + ")"
	}
	if rec.Interrupted {
		head += " INTERRUPTED"
	}
	fmt.Fprintf(summary, "%s%s\n", runMark, head)
	if err := vdbench.WriteCurve(summary, cr); err != nil {
		return nil, err
	}
	if len(cr.Points) > 0 {
		if err := vdbench.WriteSummary(summary, vdbench.Summarize(cr)); err != nil {
			return nil, err
		}
	}
	files := []string{base + ".json"}
	if err := rec.WriteFile(filepath.Join(dir, base+".json")); err != nil {
		return nil, err
	}
	charts, err := writeCharts(dir, base, title, rec)
	return append(files, charts...), err
}

// writeCharts draws a record's latency curves:
//
//	<base>.svg          mean service time and mean latency from the intended
//	                    start against achieved IOPS, all targets together
//	<base>-targets.svg  with several targets, one service-time curve per
//	                    target against that target's own IOPS
//
// The two views are separate files because a target's IOPS are a fraction
// of the total: on one x axis the per-target curves would crowd the left.
func writeCharts(dir, base, title string, rec *vdbench.RunRecord) ([]string, error) {
	points := rec.CurveOrder()
	if len(points) == 0 {
		return nil, nil
	}
	service := report.Curve{Name: "service time (all targets)"}
	intended := report.Curve{Name: "from intended start"}
	perTarget := make([]report.Curve, len(rec.Targets))
	for i, t := range rec.Targets {
		perTarget[i].Name = t
	}
	for _, p := range points {
		service.Points = append(service.Points, report.Point{IOPS: p.Achieved, Latency: p.Service.Mean, Label: p.Label, Saturated: p.Saturated})
		if p.Intended != nil {
			intended.Points = append(intended.Points, report.Point{IOPS: p.Achieved, Latency: p.Intended.Mean, Label: p.Label, Saturated: p.Saturated})
		}
		for i, tp := range p.Targets {
			if i < len(perTarget) {
				perTarget[i].Points = append(perTarget[i].Points, report.Point{IOPS: tp.Achieved, Latency: tp.Service.Mean, Label: p.Label})
			}
		}
	}
	curves := []report.Curve{service}
	if len(intended.Points) > 0 {
		curves = append(curves, intended)
	}
	draw := func(name, title, xLabel string, curves []report.Curve) error {
		var b bytes.Buffer
		if err := report.LatencyChart(&b, title, curves, report.ChartOptions{YLabel: "mean latency", XLabel: xLabel, PointLabels: true}); err != nil {
			return err
		}
		return oltp.WriteFileAtomic(filepath.Join(dir, name), b.Bytes())
	}
	files := []string{base + ".svg"}
	if err := draw(base+".svg", title+": latency vs IOPS", "IOPS (achieved, all targets)", curves); err != nil {
		return nil, err
	}
	if len(rec.Targets) > 1 {
		files = append(files, base+"-targets.svg")
		if err := draw(base+"-targets.svg", title+": service time per target", "IOPS (achieved, per target)", perTarget); err != nil {
			return files[:1], err
		}
	}
	return files, nil
}

func newVdbenchProfilesCmd(a *app) *cobra.Command {
	var (
		targets []string
		threads int
	)
	cmd := &cobra.Command{
		Use:   "profiles [NAME]",
		Short: "List the built-in profiles, or print one as a parameter file",
		Long: `Without NAME, list the review suite's profiles: name, title, threads per target
and mix; those marked APPROX define a mix the reviews do not publish, from
public facts, each number with its source in the file.

With NAME, print that profile as a parameter file, with its sd line for each
--target (or the template line sd=sd1,lun=$target to edit), ready to change and
run with 'vmbench vdbench run FILE'.`,
		Example: `  vmbench vdbench profiles
  vmbench vdbench profiles oracle-90-10 --target /dev/nvme0n1 --target /dev/nvme1n1 > oracle.vdb`,
		Args: maxOneArgNamed,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if len(targets) > 0 || threads != 0 {
					return usagef("%s: --target and --threads need a profile NAME", cmd.CommandPath())
				}
				tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tTITLE\tTHREADS\tAPPROX\tMIX")
				for _, p := range vdbench.Profiles() {
					mark := ""
					if p.Approximation {
						mark = "yes"
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", p.Name, p.Title, p.Threads, mark, p.Mix)
				}
				tw.Flush()
				fmt.Fprintln(a.stdout, "\nAPPROX: the reviews do not publish this mix; the file defines one from public facts, each number with its source.\nPrint one with 'vmbench vdbench profiles NAME'.")
				return nil
			}
			p, err := vdbench.ProfileByName(args[0])
			if err != nil {
				return usagef("%s: %v", cmd.CommandPath(), err)
			}
			text, err := p.Render(targets, threads)
			if err != nil {
				return asUsage(err)
			}
			_, err = io.WriteString(a.stdout, text)
			return err
		},
	}
	cmd.Flags().StringArrayVar(&targets, "target", nil, "a block device or file for the sd lines (repeat for several)")
	cmd.Flags().IntVar(&threads, "threads", 0, "threads per target instead of the profile's own")
	return cmd
}

func maxOneArgNamed(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usagef("%s: takes at most one profile NAME (got %d arguments)", cmd.CommandPath(), len(args))
	}
	return nil
}

func newVdbenchParseCmd(a *app) *cobra.Command {
	var src vdbenchSource
	cmd := &cobra.Command{
		Use:   "parse [FILE | -f FILE]",
		Short: "Check a parameter file and print what 'vdbench run' would do",
		Long: `Parse and validate the parameter FILE (or --profile, on --target when given) and
print what 'vmbench vdbench run' would do with it: the storage, every expanded
run with its workloads, rates and times, and the total time. Every problem is
reported with its file, line and keyword. No target is opened.`,
		Example: `  vmbench vdbench parse my.vdb
  vmbench vdbench parse --profile sql --target /dev/nvme0n1 -e 30`,
		Args: maxOneArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, _, err := src.params(cmd, args)
			if err != nil {
				return err
			}
			text, err := p.Describe()
			if err != nil {
				return asUsage(err)
			}
			_, err = io.WriteString(a.stdout, text)
			return err
		},
	}
	src.bind(cmd.Flags())
	return cmd
}
