package blockio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"vmbench/vdbench/parmfile"
)

// TargetSDs returns each lun's SD as the runs open it (the first SD that
// names it), and which luns (by lun=) a run writes to.
func TargetSDs(runs []parmfile.Run) (sds []parmfile.SD, writes map[string]bool) {
	writes = map[string]bool{}
	for _, r := range runs {
		for _, sd := range r.SDs {
			if !slices.ContainsFunc(sds, func(x parmfile.SD) bool { return x.Lun == sd.Lun }) {
				sds = append(sds, sd)
			}
			for _, wd := range r.WDs {
				if wd.RdPct < 100 && slices.Contains(wd.SDs, sd.Name) {
					writes[sd.Lun] = true
				}
			}
		}
	}
	return sds, writes
}

// CheckTargets opens every lun the runs use as they would (for writing
// when a run writes to it or extends it, with the safety checks of
// OpenTarget: in use, mounted, signature unless o.Force, a file vmbench
// did not make unless o.OverwriteFiles), and closes it again. It creates
// and changes nothing: a missing file is accepted only when its sd has
// size= and its directory exists (the run creates it), and an existing
// file is opened without growing it. Every workload on an existing target
// must have a span on it (parmfile.SpanOf, with the target's block size and
// capacity: an 8 KiB file holds no 64 KiB transfer). Every problem is
// reported.
func CheckTargets(runs []parmfile.Run, o TargetOptions) error {
	sds, writes := TargetSDs(runs)
	var errs []error
	for _, sd := range sds {
		st, err := os.Stat(sd.Lun)
		switch {
		case errors.Is(err, os.ErrNotExist) && sd.Size > 0:
			if dir, derr := os.Stat(filepath.Dir(sd.Lun)); derr != nil || !dir.IsDir() {
				errs = append(errs, fmt.Errorf("sd=%s: %s does not exist, and neither does its directory %s", sd.Name, sd.Lun, filepath.Dir(sd.Lun)))
			}
			continue
		case errors.Is(err, os.ErrNotExist):
			errs = append(errs, fmt.Errorf("sd=%s: target %s does not exist (valid: an existing block device or file; a new file needs size=)", sd.Name, sd.Lun))
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("sd=%s: %w", sd.Name, err))
			continue
		}
		probe := sd.Clone()
		write := writes[sd.Lun]
		if st.Mode().IsRegular() {
			write = write || sd.Size > st.Size() // the run extends it: a write too
			probe.Size = 0                       // never grow (preformat) a file while checking
		}
		t, err := OpenTarget(probe, TargetOptions{Write: write, Force: o.Force, OverwriteFiles: o.OverwriteFiles, checkOnly: true})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		capacity := t.Capacity()
		if !t.Device {
			capacity = max(capacity, sd.Size) // the run grows a smaller file to size=
		}
		errs = append(errs, parmfile.CheckSpans(runs, sd.Lun, capacity, t.BlockSize())...)
		if err := t.Close(); err != nil {
			errs = append(errs, fmt.Errorf("sd=%s: closing %s: %w", sd.Name, sd.Lun, err))
		}
	}
	return errors.Join(errs...)
}
