package scenarios

import (
	"context"

	"vmbench/scenarios/blocksuite"
	"vmbench/scenarios/spec"
)

// CheckSuite checks a block suite (as loaded; opts.Simulate runs its
// simulate: block) before anything is created: the file, each profile
// with the suite's values, this host's bounds and free space, and the
// targets (exist, can be opened, not in use, no signature unless force:).
// Every error is bad input, naming the file and line.
func CheckSuite(s *spec.Suite, opts Options) error {
	if s.InVMs() {
		_, err := checkVMSuite(s, opts)
		return err
	}
	return blocksuite.Check(s, opts.Simulate)
}

// RunSuite runs a block-suite campaign on this host (blocksuite.Run: its
// profiles one after the other on its targets, or with opts.Simulate on
// temporary files), checked first as CheckSuite does; the review table
// goes to opts.Out at the end, the interval lines as they come, and
// progress to opts.Log.
//
// A suite with a vms: block runs inside block-worker VMs instead
// (runVMSuite): provisioned, each profile in every VM at once, merged
// point by point, and destroyed at the end, as a VM campaign's are.
func RunSuite(ctx context.Context, s *spec.Suite, opts Options) (*Outcome, error) {
	if s.InVMs() {
		return runVMSuite(ctx, s, opts)
	}
	dir, err := blocksuite.Run(ctx, s, blocksuite.Options{Simulate: opts.Simulate, ResultsDir: opts.ResultsDir,
		Version: opts.Version, Out: opts.Out, Log: opts.Log})
	if err != nil {
		return nil, err
	}
	return &Outcome{Dir: dir}, nil
}
