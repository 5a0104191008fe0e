package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"vmbench/oltp"
	"vmbench/vdbench"
)

// campaignKind reads the top-level kind: of a campaign file without
// checking anything else ("" when it has none or cannot be read: the
// OLTP loader then reports the problem).
func campaignKind(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var head struct {
		Kind string `yaml:"kind"`
	}
	if yaml.Unmarshal(b, &head) != nil {
		return ""
	}
	return head.Kind
}

// suiteCampaignFlags are the 'campaign run' flags a block-suite file uses.
var suiteCampaignFlags = []string{"simulate", "results-dir"}

// runBlockSuite runs a block-suite campaign file (kind: block-suite) for
// 'campaign run': the suite's profiles one after the other on its
// targets, or with --simulate on temporary files in a temporary directory
// (removed at the end), with the file's simulate: block.
//
// Bad input (the file, a flag, a target, a count beyond what the host can
// run, a size= its file system has no room for) is found before anything
// is created. Results go to <results-dir>/<name>-<time>-<4hex>, created
// exclusively as <...>.incomplete and renamed when the suite completes:
// suite.yaml (the suite as run), per profile <profile>.json (a
// vdbench.RunRecord), <profile>.svg, <profile>-targets.svg (several
// targets) and <profile>.txt (interval lines, curve table, summary), and
// report.md, the review summary table with links to the charts. After a
// failure or Ctrl-C the directory keeps its .incomplete name and holds the
// profiles completed (it is removed when there are none).
func runBlockSuite(cmd *cobra.Command, a *app, file string, simulate bool, resultsDir string) error {
	var other []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if !slices.Contains(suiteCampaignFlags, f.Name) {
			other = append(other, "--"+f.Name)
		}
	})
	if len(other) > 0 {
		return usagef("%s is a block-suite campaign: %s do not apply (valid: --simulate, --results-dir; set force: in the file)", file, strings.Join(other, ", "))
	}
	s, err := vdbench.LoadSuite(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usagef("campaign file %s does not exist (the standard ones are in scenarios/)", file)
		}
		return asUsage(err)
	}
	run := s
	if simulate {
		if s.Simulate == nil {
			return usagef("%s: --simulate needs a simulate: block (targets, size, elapsed, interval, warmup, curve)", file)
		}
		tmp, err := os.MkdirTemp("", "vmbench-suite-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		run = s.Simulated(tmp)
		if err := run.Validate(); err != nil {
			return usageError{fmt.Errorf("%s (simulate: block): %w", file, err)}
		}
		if err := run.CheckHost(vdbench.ReadHostLimits()); err != nil {
			return usageError{fmt.Errorf("with --simulate: %w", err)}
		}
	} else {
		if err := s.CheckHost(vdbench.ReadHostLimits()); err != nil {
			return asUsage(err)
		}
		plans, err := s.Plans()
		if err != nil {
			return asUsage(err)
		}
		runs := make([]vdbench.Run, len(plans))
		for i, p := range plans {
			runs[i] = p.Run
		}
		if err := vdbench.CheckTargets(runs, s.Force); err != nil {
			return usageError{fmt.Errorf("%s: targets: %w", file, err)}
		}
	}
	if err := checkResultsDir(resultsDir); err != nil {
		return err
	}
	now := time.Now()
	id := fmt.Sprintf("%s-%s-%04x", s.Name, now.UTC().Format("20060102T150405Z"), rand.Uint32N(1<<16))
	final := filepath.Join(resultsDir, id)
	w := &suiteWriter{dir: final + ".incomplete", suite: run, start: now}
	// The id carries a random suffix and the directory is made exclusively,
	// so two suites started in the same second never share either.
	if err := os.Mkdir(w.dir, 0o755); err != nil {
		return fmt.Errorf("--results-dir: %w", err)
	}
	resolved, err := yaml.Marshal(run)
	if err == nil {
		err = oltp.WriteFileAtomic(filepath.Join(w.dir, "suite.yaml"), resolved)
	}
	if err != nil {
		os.RemoveAll(w.dir)
		return err
	}
	fmt.Fprintf(a.stderr, "block suite %s: results in %s\n", id, final)
	_, err = vdbench.RunSuite(cmd.Context(), run, vdbench.SuiteOptions{Out: a.stdout, Log: a.stderr, OnProfile: w.profile})
	if err != nil {
		if len(w.rows) == 0 {
			os.RemoveAll(w.dir) // nothing measured: leave nothing behind
			return fmt.Errorf("block suite %s: %w", s.Name, err)
		}
		return fmt.Errorf("block suite %s: %w (the %d profile(s) measured until then are in %s)", s.Name, err, len(w.rows), w.dir)
	}
	if err := os.Rename(w.dir, final); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout)
	w.table(a.stdout)
	fmt.Fprintf(a.stderr, "\nresults: %s\n", final)
	return nil
}

// suiteWriter writes each profile's files as it completes, and report.md.
type suiteWriter struct {
	dir   string
	suite *vdbench.Suite
	start time.Time
	rows  []suiteRow
}

type suiteRow struct {
	profile vdbench.Profile
	summary vdbench.Summary
	charts  []string
	stopped bool
}

// profile is the SuiteOptions.OnProfile hook.
func (w *suiteWriter) profile(pr *vdbench.ProfileResult) error {
	name := pr.Plan.Profile.Name
	var text bytes.Buffer
	for _, p := range pr.Curve.Points {
		if err := vdbench.WriteIntervals(&text, p); err != nil {
			return err
		}
	}
	rec, err := vdbench.NewRunRecord(pr.Plan.Run, pr.Curve, pr.Err)
	if err != nil {
		return err
	}
	rec.Profile, rec.Title, rec.Approximation = name, pr.Plan.Profile.Title, pr.Plan.Profile.Approximation
	if err := rec.WriteFile(filepath.Join(w.dir, name+".json")); err != nil {
		return err
	}
	charts, err := writeCharts(w.dir, name, pr.Plan.Profile.Title, rec)
	if err != nil {
		return err
	}
	text.WriteString("\n")
	if err := vdbench.WriteCurve(&text, pr.Curve); err != nil {
		return err
	}
	if err := vdbench.WriteSummary(&text, pr.Summary); err != nil {
		return err
	}
	if err := oltp.WriteFileAtomic(filepath.Join(w.dir, name+".txt"), text.Bytes()); err != nil {
		return err
	}
	w.rows = append(w.rows, suiteRow{profile: pr.Plan.Profile, summary: pr.Summary, charts: charts, stopped: pr.Err != nil})
	return w.writeReport()
}

// peak writes the peak as reviews do: GB/s for the 64K profiles, IOPS for
// the others, with its latency.
func (r suiteRow) peak() string {
	s := r.summary
	if strings.HasPrefix(r.profile.Name, "64k-") {
		return fmt.Sprintf("%.3g GB/s (%s IOPS) @ %s", s.PeakGBps, vdbench.FormatIOPS(s.PeakIOPS), vdbench.FormatLatency(s.PeakLatency))
	}
	return fmt.Sprintf("%s IOPS @ %s", vdbench.FormatIOPS(s.PeakIOPS), vdbench.FormatLatency(s.PeakLatency))
}

func (r suiteRow) title() string {
	t := r.profile.Title
	if r.profile.Approximation {
		t += " †"
	}
	if r.stopped {
		t += " (interrupted)"
	}
	return t
}

func (r suiteRow) cells() []string {
	s := r.summary
	return []string{r.title(), vdbench.FormatIOPS(s.StartIOPS) + " @ " + vdbench.FormatLatency(s.StartLatency),
		vdbench.CrossingText(s.Cross100us), vdbench.CrossingText(s.Cross1ms), r.peak()}
}

var suiteColumns = []string{"profile", "start IOPS @ latency", "crosses 100 µs", "crosses 1 ms", "peak @ latency"}

// table writes the review summary as a text table.
func (w *suiteWriter) table(out io.Writer) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(suiteColumns, "\t"))
	for _, r := range w.rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t"))
	}
	tw.Flush()
	fmt.Fprintln(out, "latency: mean service time of each I/O; † APPROXIMATION: a mix the reviews do not publish")
}

// writeReport (re)writes report.md with the profiles completed so far.
func (w *suiteWriter) writeReport() error {
	s := w.suite
	var b strings.Builder
	fmt.Fprintf(&b, "# Block suite %s\n\n", s.Name)
	if s.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", s.Description)
	}
	if s.SimulatedTargets {
		fmt.Fprintf(&b, "Simulated: %d temporary files of %s each, removed after the run; the figures measure this host's file system, not a drive.\n\n",
			len(s.Targets), vdbench.FormatSize(int64(s.Size)))
	} else {
		fmt.Fprintf(&b, "Targets: %s.\n\n", strings.Join(s.Targets, ", "))
	}
	if s.Source != "" {
		fmt.Fprintf(&b, "Protocol: %s. ", s.Source)
	}
	fmt.Fprintf(&b, "Started %s, vmbench %s. Latency is the mean service time of each I/O (vdbench's response time); "+
		"crossings are interpolated between curve points; the peak is the highest achieved rate, the max run included.\n\n",
		w.start.Format(time.RFC3339), version)
	fmt.Fprintf(&b, "| %s | charts |\n|%s---|\n", strings.Join(suiteColumns, " | "), strings.Repeat("---|", len(suiteColumns)))
	for _, r := range w.rows {
		var links []string
		for _, c := range r.charts {
			label := "latency vs IOPS"
			if strings.HasSuffix(c, "-targets.svg") {
				label = "per target"
			}
			links = append(links, fmt.Sprintf("[%s](%s)", label, c))
		}
		links = append(links, fmt.Sprintf("[data](%s.json)", r.profile.Name), fmt.Sprintf("[intervals](%s.txt)", r.profile.Name))
		fmt.Fprintf(&b, "| %s | %s |\n", strings.Join(r.cells(), " | "), strings.Join(links, ", "))
	}
	b.WriteString("\n† APPROXIMATION: the reviews do not publish this mix; vmbench's profile defines one from public facts (`vmbench vdbench profiles NAME`).\n")
	for _, r := range w.rows {
		for _, c := range r.charts {
			if !strings.HasSuffix(c, "-targets.svg") {
				fmt.Fprintf(&b, "\n## %s\n\n![%s](%s)\n", r.profile.Title, r.profile.Title, c)
			}
		}
	}
	return oltp.WriteFileAtomic(filepath.Join(w.dir, "report.md"), []byte(b.String()))
}
