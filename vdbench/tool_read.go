package vdbench

import (
	"os"
	"path/filepath"

	"vmbench/workload"
)

// ReadResults implements workload.ResultReader: the RunRecord of
// base.json (ReadRunRecord: a newer record is refused, naming the file
// and the versions read) as the Output's Record, its max run's Result as
// the Output's Result, and the names of base's files present in dir, in
// WriteResults's order (base.json, base.svg, base-targets.svg, base.txt).
func (c *Config) ReadResults(dir, base string) (*workload.Output, []string, error) {
	rec, err := ReadRunRecord(filepath.Join(dir, base+".json"))
	if err != nil {
		return nil, nil, err
	}
	o := &workload.Output{Record: rec}
	if len(rec.Points) > 0 {
		o.Result = rec.Points[0].Result
	}
	files := []string{base + ".json"}
	for _, f := range []string{base + ".svg", base + "-targets.svg", base + ".txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			files = append(files, f)
		}
	}
	return o, files, nil
}
