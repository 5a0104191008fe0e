package vdbench

import (
	"errors"

	"vmbench/oltp"

	"vmbench/workload"
)

// DecodeRecord implements workload.OutputMerger: b is a RunRecord as an
// agent wrote it (record.json), read as ReadRunRecord reads a file;
// name is where it came from, for errors.
func (c *Config) DecodeRecord(name string, b []byte) (any, error) {
	return parseRunRecord(name, b)
}

// MergeOutputs implements workload.OutputMerger: the curves of one
// profile run in several VMs at once, merged point by point
// (MergeVMRecords). A nil Output, or one without a RunRecord, is a VM
// that measured nothing and is left out. The Output's Result is the
// merged max run, as Run's is.
func (c *Config) MergeOutputs(names []string, outs []*workload.Output) (*workload.Output, error) {
	if len(names) != len(outs) {
		return nil, errors.New("vdbench: MergeOutputs needs one name per Output")
	}
	var parts []VMRecord
	for i, o := range outs {
		if r := recordOf(o); len(r.Points) > 0 {
			parts = append(parts, VMRecord{VM: names[i], Record: r})
		}
	}
	if len(parts) == 0 {
		return nil, errors.New("vdbench: no VM measured a point")
	}
	rec, err := MergeVMRecords(parts)
	if err != nil {
		return nil, err
	}
	o := &workload.Output{Record: rec}
	if len(rec.Points) > 0 {
		o.Result = rec.Points[0].Result
	}
	return o, nil
}

// Results implements workload.OutputMerger: each point's merged Result,
// in run order.
func (c *Config) Results(o *workload.Output) []*oltp.Result {
	var rs []*oltp.Result
	for _, p := range recordOf(o).Points {
		if p.Result != nil {
			rs = append(rs, p.Result)
		}
	}
	return rs
}
