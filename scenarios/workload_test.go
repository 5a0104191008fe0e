package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/scenarios/spec"
	_ "vmbench/sysbench" // registers the campaigns' tool
)

// TestWorkloadFlagErrorsNameTheirKey: a flag's problem names its key's
// line, once, where it is written; numbers reach the flag parser as
// written.
func TestWorkloadFlagErrorsNameTheirKey(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           string
		once           string // appears exactly once in the error
	}{
		{"unknown key", "    time: 30s", "    time: 30s\n    bogus: 1", "c.yaml:13: workload.flags.bogus (sysbench oltp_read_write): --bogus: not an option of sysbench", "--bogus"},
		{"unknown simulated key", "      time: 5s", "      time: 5s\n      bogus: 1", "c.yaml:18: simulate.workload.flags.bogus (sysbench oltp_read_write): --bogus:", "--bogus"},
		{"huge number", "threads: 32", "threads: 99999999999999999999", "c.yaml:11: workload.flags.threads (sysbench oltp_read_write): --threads=99999999999999999999:", "threads"},
		{"validate names the key", "    time: 30s", "    time: 30s\n    table_size: 0", "c.yaml:13: workload.flags.table_size (sysbench oltp_read_write): --table-size: 0 is not valid", "0 is not valid"},
		{"a run that never ends", "      time: 5s", "      time: 0", "c.yaml:17: simulate.workload.flags: time 0 and no events: the run would never end", "never end"},
	} {
		s, err := spec.Parse("c.yaml", []byte(strings.Replace(hostileBase, tc.old, tc.new, 1)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_, err = checkTool(s, simulated{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
			continue
		}
		if n := strings.Count(err.Error(), tc.once); n != 1 && tc.name != "huge number" {
			t.Errorf("%s: %q appears %d times in %v", tc.name, tc.once, n, err)
		}
		if strings.Contains(err.Error(), "e+") || strings.Contains(err.Error(), "strconv") {
			t.Errorf("%s: Go internals in %v", tc.name, err)
		}
	}
	// A simulate flag overrides the file's spelled another way.
	s, err := spec.Parse("c.yaml", []byte(strings.Replace(hostileBase, "      time: 5s", "      time: 5s\n      table_size: 100", 1)))
	if err != nil {
		t.Fatal(err)
	}
	s.Workload.Flags["table-size"] = 0
	if got := s.Simulated().Workload.Flags; got["table-size"] != nil || got["table_size"] != 100 {
		t.Errorf("simulated flags %v: table_size must replace table-size", got)
	}
}

// hostileBase is a small VM campaign; its workload flags start at line 10.
var hostileBase = specFixture("hostile.yaml")

// specFixture is package spec's test file testdata/name (a campaign or
// suite file its tests edit too).
func specFixture(name string) string { return fixtureText(filepath.Join("spec", "testdata", name)) }

// fixtureText is the test file at path, a sibling package's.
func fixtureText(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}
