package rundir

import (
	"strings"
	"testing"
)

func TestDataKey(t *testing.T) {
	a := DataKey{Tool: "sysbench", Shape: map[string]string{"tables": "4", "table-size": "10000"}, Engine: "sqlite 3.54.1"}
	b := DataKey{Tool: "sysbench", Shape: map[string]string{"table-size": "10000", "tables": "4"}, Engine: "sqlite 3.54.1"}
	if a.ID() != b.ID() || !strings.HasPrefix(a.ID(), "sysbench-") || len(a.ID()) != len("sysbench-")+12 {
		t.Errorf("IDs %s %s: want equal, sysbench- and 12 hex digits", a.ID(), b.ID())
	}
	c := DataKey{Tool: "sysbench", Shape: map[string]string{"tables": "4", "table-size": "1000", "rand-seed": "3"}, Engine: "mysql 11.4.2-MariaDB"}
	if a.ID() == c.ID() {
		t.Error("different keys, same ID")
	}
	got := strings.Join(a.Differences(c), "; ")
	want := `rand-seed "3" (wanted ""); table-size "1000" (wanted "10000"); engine "mysql 11.4.2-MariaDB" (wanted "sqlite 3.54.1")`
	if got != want {
		t.Errorf("differences:\n got %s\nwant %s", got, want)
	}
	d := a
	d.Disk = "db-test 270GB"
	if a.ID() == d.ID() || strings.Join(d.Differences(a), "") != `vDisk "" (wanted "db-test 270GB")` {
		t.Errorf("a key of another vDisk: same ID or differences %v", d.Differences(a))
	}
	if s := d.String(); s != "sysbench table-size=10000 tables=4 on sqlite 3.54.1, vDisk db-test 270GB" {
		t.Errorf("String() = %q", s)
	}
}
