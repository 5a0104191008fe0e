package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"vmbench/oltp"
	"vmbench/workload"
)

// renderVMs builds the review of a VM campaign's results directory from
// campaign.yaml (the name, the workload's tool, name and flags),
// vms/<vm>.json and merged.json, read back through the Result schema
// version. Without merged.json (the campaign stopped before it merged)
// the VMs' Results are merged here, incomplete ones included, and the
// review says so.
func renderVMs(dir string, ri *RunInfo) (*Review, error) {
	spec, err := Load(filepath.Join(dir, "campaign.yaml"))
	if err != nil {
		return nil, err
	}
	perVM, err := readVMResults(dir)
	if err != nil {
		return nil, err
	}
	merged, err := oltp.ReadResultFile(filepath.Join(dir, "merged.json"))
	incomplete := errors.Is(err, fs.ErrNotExist)
	if incomplete {
		merged, err = oltp.MergeWith(oltp.MergeOptions{Incomplete: true}, perVM...)
	}
	if err != nil {
		return nil, err
	}
	cols, err := toolColumns(filepath.Join(dir, "campaign.yaml"), spec.Workload)
	if err != nil {
		return nil, err
	}
	rv, err := NewReview(spec.Name, perVM, merged, cols)
	if err != nil {
		return nil, err
	}
	if ri.Simulated {
		rv.Simulated = "simulated: VMs in an in-process vSphere simulator (vcsim), " + ri.Databases +
			", and the campaign file's scaled-down simulate: sizes; the figures measure this machine, not the protocol's servers"
	}
	if incomplete {
		rv.Incomplete = fmt.Sprintf("incomplete: the campaign stopped before it merged its results; %d of %d VMs' results, %s, merged here (merged.json is missing)",
			len(perVM), spec.VMs.Count, vmStates(perVM))
	}
	return rv, nil
}

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
	for i, f := range files {
		if rs[i], err = oltp.ReadResultFile(f); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// vmStates says how the VMs' runs ended: "all complete", or the count of
// each state ("1 complete, 1 interrupted").
func vmStates(rs []*oltp.Result) string {
	n := map[string]int{}
	for _, r := range rs {
		n[r.State()]++
	}
	if n[oltp.StatusComplete] == len(rs) {
		return "all complete"
	}
	var parts []string
	for _, st := range []string{oltp.StatusComplete, oltp.StatusInterrupted, oltp.StatusFailed} {
		if n[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
		}
	}
	return strings.Join(parts, ", ")
}

// toolColumns are the review columns of the campaign's workload, through
// the workload contract: the tool from the registry, its Config parsed
// (workload.Parse) from the tool, name and flags campaign.yaml records,
// and its workload.Reviewer's columns; none when it is not a Reviewer.
// file names campaign.yaml in errors.
func toolColumns(file string, w WorkloadSpec) ([]workload.Column, error) {
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
	if r, ok := cfg.(workload.Reviewer); ok {
		return r.ReviewColumns(), nil
	}
	return nil, nil
}
