package vdbench

import (
	"slices"
	"strings"
	"testing"

	"vmbench/vdbench/parmfile"
)

func TestRunFileBasesAreDistinct(t *testing.T) {
	runs := []parmfile.Run{{Name: "x"}, {Name: "x-targets"}, {Name: "X"}, {Name: "summary"}, {Name: "a/b"}, {Name: "a_b"}}
	bases := RunFileBases(runs)
	want := []string{"x", "x-targets_rep2", "X_rep2", "summary", "a_b", "a_b_rep2"}
	if !slices.Equal(bases, want) {
		t.Errorf("bases %q, want %q", bases, want)
	}
	seen := map[string]bool{"summary.txt": true, "parmfile.vdb": true}
	for _, b := range bases {
		for _, f := range []string{b + ".json", b + ".svg", b + "-targets.svg"} {
			if f = strings.ToLower(f); seen[f] {
				t.Errorf("%s written twice", f)
			}
			seen[f] = true
		}
	}
}
