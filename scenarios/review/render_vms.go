package review

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"vmbench/oltp"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// renderVMs builds the review of a VM campaign's results directory from
// campaign.yaml (the name, the workload's tool, name and flags),
// vms/<vm>.json and merged.json, read back through the Result schema
// version. Without merged.json (the campaign stopped before it merged)
// the VMs' Results are merged here, incomplete ones included, and the
// review says so. It returns the review and the workload campaign.yaml
// records, its Config parsed (toolConfig), for the tool's own report
// (Report.toolReport): campaign.yaml is read once per Render.
func renderVMs(dir string, ri *rundir.RunInfo) (*Review, recordedTool, error) {
	file := filepath.Join(dir, "campaign.yaml")
	cf, err := loadRecorded(file)
	if err != nil {
		return nil, recordedTool{}, err
	}
	var cfg workload.Config
	rv, err := renderVMReview(dir, ri, cf, func() ([]workload.Column, error) {
		cfg, err = toolConfig(file, cf.Workload)
		return reviewColumns(cfg), err
	})
	if err != nil {
		return nil, recordedTool{}, err
	}
	return rv, recordedTool{name: cf.Workload.Tool, cfg: cfg}, nil
}

// renderVMReview is renderVMs's review of campaign.yaml cf, its tool's
// review columns from columns (called once the results are read and
// checked, so that their errors come first).
func renderVMReview(dir string, ri *rundir.RunInfo, cf *spec.Campaign, columns func() ([]workload.Column, error)) (*Review, error) {
	perVM, err := readVMResults(dir)
	if err != nil {
		return nil, err
	}
	mergedFile := filepath.Join(dir, "merged.json")
	merged, err := oltp.ReadResultFile(mergedFile)
	incomplete := errors.Is(err, fs.ErrNotExist)
	if incomplete && ri.Completed {
		return nil, fmt.Errorf("%s is missing, but %s records that the campaign completed: the directory is damaged", mergedFile, filepath.Join(dir, rundir.RunFile))
	}
	if incomplete {
		merged, err = oltp.MergeWith(oltp.MergeOptions{Incomplete: true}, perVM...)
	} else if err == nil {
		err = checkMerged(dir, cf, len(ri.LeftOut()), merged, perVM)
	}
	if err != nil {
		return nil, err
	}
	cols, err := columns()
	if err != nil {
		return nil, err
	}
	rv, err := newReview(cf.Name, perVM, merged, cols)
	if err != nil {
		return nil, err
	}
	rv.Platform = PlatformLines(merged)
	rv.Layout = layoutWords(ri.VMs)
	if k := ri.DataSet; k != nil {
		rv.Data = fmt.Sprintf("restored into every VM from pre-built data set %s (%s) and checked, not loaded", k.ID(), k)
	}
	if len(ri.Checks) > 0 {
		rv.Checks = CheckSummary(ri.Checks)
	}
	if ri.Simulated && len(rv.Platform) > 0 {
		rv.Platform = append([]string{simulatedCounters}, rv.Platform...)
	}
	if ri.Simulated {
		where := "VMs in an in-process vSphere simulator (vcsim)"
		if ri.VSphere != "" {
			where = "VMs on the vSphere at " + ri.VSphere + " (given with --url)"
		}
		rv.Simulated = "simulated: " + where + ", " + ri.Databases +
			", and the campaign file's scaled-down simulate: sizes; the figures measure this machine, not the protocol's servers"
	}
	if l := ri.LeftOut(); len(l) > 0 {
		rv.Incomplete = fmt.Sprintf("%d of %d VMs measured: left out %s", len(perVM), cf.VMs.Count, strings.Join(l, "; "))
	}
	if incomplete {
		rv.Incomplete = fmt.Sprintf("incomplete: the campaign stopped before it merged its results; %d of %d VMs' results, %s, merged here (merged.json is missing)",
			len(perVM), cf.VMs.Count, vmStates(perVM))
	}
	return rv, nil
}

// simulatedCounters opens a simulated campaign's platform summary.
const simulatedCounters = "(simulated: vcsim's synthetic counter values, not a measurement)"

// readVMResults reads vms/*.json in VM order (role-01, role-02, ...:
// shorter names first, then by name, so role-100 follows role-99).
func readVMResults(dir string) ([]*oltp.Result, error) {
	files, err := filepath.Glob(filepath.Join(dir, "vms", "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s has no VM results (vms/<vm>.json): the campaign measured nothing", dir)
	}
	slices.SortFunc(files, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	rs := make([]*oltp.Result, len(files))
	measured := 0
	for i, f := range files {
		if rs[i], err = oltp.ReadResultFile(f); err != nil {
			return nil, err
		}
		// The file is named after its VM: a Result copied under
		// another name would count one VM twice.
		if vm, name := rs[i].Labels["vm"], strings.TrimSuffix(filepath.Base(f), ".json"); vm != name {
			return nil, fmt.Errorf("%s: labels.vm is %q, not %q as the file is named: a VM's result copied or renamed", f, vm, name)
		}
		if rs[i].Phase == oltp.PhaseMeasure {
			measured++
		}
	}
	if measured == 0 {
		return nil, fmt.Errorf("%s measured nothing: its VM results (vms/<vm>.json) are of phase %q, not %q (the campaign stopped before its measure phase)",
			dir, rs[0].Phase, oltp.PhaseMeasure)
	}
	for i, r := range rs {
		if r.Phase != oltp.PhaseMeasure {
			return nil, fmt.Errorf("%s: phase %q is not a measurement (only %q results are reported)", files[i], r.Phase, oltp.PhaseMeasure)
		}
	}
	return rs, nil
}

// checkMerged checks a complete directory's merged.json against its VM
// results and campaign.yaml: it merges exactly the VM results vms/ holds,
// and they are as many as the vms.count that ran.
func checkMerged(dir string, cf *spec.Campaign, leftOut int, merged *oltp.Result, perVM []*oltp.Result) error {
	parts := 0
	for _, r := range perVM {
		parts += max(r.Parts, 1)
	}
	if merged.Parts != parts {
		return fmt.Errorf("%s: merges %d run(s), but vms/ holds %d VM result(s) of %d run(s): a VM's result is missing or extra",
			filepath.Join(dir, "merged.json"), merged.Parts, len(perVM), parts)
	}
	if cf.VMs.Count-leftOut != len(perVM) {
		out := ""
		if leftOut > 0 {
			out = fmt.Sprintf(" (%d left out)", leftOut)
		}
		return fmt.Errorf("%s: vms.count is %d%s, but vms/ holds %d VM result(s) and merged.json merges them",
			filepath.Join(dir, "campaign.yaml"), cf.VMs.Count, out, len(perVM))
	}
	if err := checkMergedFigures(filepath.Join(dir, "merged.json"), merged, perVM); err != nil {
		return err
	}
	return checkMergedClient(filepath.Join(dir, "merged.json"), merged, perVM)
}

// checkMergedFigures checks that merged.json's elapsed time and each
// operation's count and latency sum are the merge of the VM results'
// (oltp.Merge, as the campaign merged them): a VM file or merged.json
// edited since is refused rather than reported with figures from both.
func checkMergedFigures(file string, merged *oltp.Result, perVM []*oltp.Result) error {
	want, err := oltp.MergeWith(oltp.MergeOptions{Incomplete: true}, perVM...)
	if err != nil {
		return fmt.Errorf("%s: the VM results in vms/ do not merge: %w", file, err)
	}
	if merged.Elapsed != want.Elapsed {
		return fmt.Errorf("%s: elapsed_ns is %d, but the VM results' elapsed times merge to %d (their mean): a result was edited",
			file, int64(merged.Elapsed), int64(want.Elapsed))
	}
	for _, w := range want.Ops {
		g := merged.Op(w.Name)
		if g == nil || g.Latency.Count != w.Latency.Count || g.Latency.SumNs != w.Latency.SumNs {
			got := "none"
			if g != nil {
				got = fmt.Sprintf("%d, latency sum %d ns", g.Latency.Count, g.Latency.SumNs)
			}
			return fmt.Errorf("%s: %s count is %s, but the VM results merge to %d, latency sum %d ns: counts that do not match the VMs'",
				file, w.Name, got, w.Latency.Count, w.Latency.SumNs)
		}
	}
	if len(merged.Ops) != len(want.Ops) {
		return fmt.Errorf("%s: has %d operations, but the VM results merge to %d", file, len(merged.Ops), len(want.Ops))
	}
	return nil
}

// checkMergedClient checks that merged.json's client cost is the merge of
// the VM results' (oltp.MergeClientCost): an edited VM file, or a merged
// file from other results, is refused rather than reported.
func checkMergedClient(file string, merged *oltp.Result, perVM []*oltp.Result) error {
	cs := make([]*oltp.ClientCost, len(perVM))
	for i, r := range perVM {
		cs[i] = r.Client
	}
	want, got := oltp.MergeClientCost(cs), merged.Client
	switch {
	case want == nil && got == nil:
		return nil
	case want == nil || got == nil:
		return fmt.Errorf("%s: has %s client cost, but the VM results merge to %s", file, presence(got != nil), presence(want != nil))
	case got.UserCPU != want.UserCPU || got.SystemCPU != want.SystemCPU || got.Processes != want.Processes || got.Cores != want.Cores ||
		got.VoluntaryCtxSwitches != want.VoluntaryCtxSwitches || got.InvoluntaryCtxSwitches != want.InvoluntaryCtxSwitches:
		return fmt.Errorf("%s: client cost %v CPU in %d process(es) is not the merge of the VM results' (%v in %d)",
			file, got.CPU(), got.Processes, want.CPU(), want.Processes)
	}
	return nil
}

func presence(has bool) string {
	if has {
		return "a"
	}
	return "no"
}

// vmStates says how the VMs' runs ended: "all complete", or the count of
// each state ("1 complete, 1 interrupted").
func vmStates(rs []*oltp.Result) string {
	n := map[oltp.Status]int{}
	for _, r := range rs {
		n[r.State()]++
	}
	if n[oltp.StatusComplete] == len(rs) {
		return "all complete"
	}
	var parts []string
	for _, st := range []oltp.Status{oltp.StatusComplete, oltp.StatusInterrupted, oltp.StatusFailed} {
		if n[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
		}
	}
	return strings.Join(parts, ", ")
}

// reviewColumns are the review columns of the campaign's workload cfg
// (toolConfig), its workload.Reviewer's columns; none when it is not a
// Reviewer (or cfg is nil).
func reviewColumns(cfg workload.Config) []workload.Column {
	if r, ok := cfg.(workload.Reviewer); ok {
		return r.ReviewColumns()
	}
	return nil
}

// toolConfig is the campaign's workload Config: the tool from the
// registry, its Config parsed (workload.Parse) from the tool, name and
// flags campaign.yaml records. file names campaign.yaml in errors.
func toolConfig(file string, w spec.Workload) (workload.Config, error) {
	t, err := workload.Lookup(w.Tool)
	if err != nil {
		return nil, fmt.Errorf("%s: workload.tool: %w", file, err)
	}
	flags := make(map[string]string, len(w.Flags))
	for k, v := range w.Flags {
		flags[k] = fmt.Sprint(v)
	}
	cfg, err := workload.Parse(t, w.Name, flags, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: workload %s %s: %w", file, w.Tool, w.Name, err)
	}
	return cfg, nil
}
