package scenarios

import (
	"reflect"
	"testing"
)

func TestMergeYAML(t *testing.T) {
	for _, c := range []struct {
		name             string
		base, over, want map[string]any
	}{
		{"nested maps merge key by key",
			map[string]any{"simulate": map[string]any{"hosts": 1, "workload": map[string]any{"flags": map[string]any{"time": "20s", "tables": 4}}}},
			map[string]any{"simulate": map[string]any{"workload": map[string]any{"flags": map[string]any{"time": "6s"}}}},
			map[string]any{"simulate": map[string]any{"hosts": 1, "workload": map[string]any{"flags": map[string]any{"time": "6s", "tables": 4}}}}},
		{"a list replaces", map[string]any{"profiles": []any{"a", "b"}}, map[string]any{"profiles": []any{"c"}}, map[string]any{"profiles": []any{"c"}}},
		{"a new key is added", nil, map[string]any{"name": "x"}, map[string]any{"name": "x"}},
	} {
		if got := mergeYAML(c.base, c.over); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestLoadReviewFull(t *testing.T) {
	rf, err := LoadReview("review-full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if rf.OnFailure != ReviewContinue || len(rf.Campaigns) != 6 {
		t.Fatalf("review-full.yaml: on-failure %q, %d campaigns", rf.OnFailure, len(rf.Campaigns))
	}
	f, err := rf.Load(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Spec.Simulated().Workload.Flags["time"]; got != "6s" {
		t.Errorf("sysbench-4vm with the review's override: simulated time %v, want 6s", got)
	}
}
