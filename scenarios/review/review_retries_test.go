package review

import (
	"bytes"
	"strings"
	"testing"

	"vmbench/oltp"
)

// A retried SQLITE_BUSY or deadlock is counted by class (errors.busy,
// errors.deadlock) and as a retry; the review shows it as a retry, and
// errors only for what no retry absorbed.
func TestReviewShowsRetriesApartFromErrors(t *testing.T) {
	vms := r7415(t)[:2]
	vms[0].Counters = map[string]int64{"errors.busy": 7, "retries": 7}
	vms[1].Counters = map[string]int64{"errors.deadlock": 2, "errors.lock_wait_timeout": 1, "retries": 2}
	merged, err := oltp.Merge(vms...)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := newReview("retries", vms, merged, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := rv.VMs[0]; r.Retries != 7 || r.Errors != 0 {
		t.Errorf("VM 1: retries %d errors %d, want 7 and 0", r.Retries, r.Errors)
	}
	if r := rv.VMs[1]; r.Retries != 2 || r.Errors != 1 {
		t.Errorf("VM 2: retries %d errors %d, want 2 and 1", r.Retries, r.Errors)
	}
	if rv.Retries != 9 || rv.Errors != 1 {
		t.Errorf("aggregate: retries %d errors %d, want 9 and 1", rv.Retries, rv.Errors)
	}
	var b bytes.Buffer
	if err := rv.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if head := lines[3]; !strings.Contains(head, "retries  errors  reconn") {
		t.Errorf("header %q lacks the retries and errors columns", head)
	}
	if row := lines[4]; !strings.HasSuffix(row, "      7       0       0") {
		t.Errorf("VM 1's row %q does not show 7 retries and 0 errors", row)
	}
}
