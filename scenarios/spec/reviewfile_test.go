package spec

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestMergeOverride: an override merges into the campaign file node by
// node (nested mappings key by key, a list or value replaced, a new key
// added), and each line of the merged text knows where it came from.
func TestMergeOverride(t *testing.T) {
	base := "name: c\nsimulate:\n  hosts: 1\n  workload:\n    flags: {time: 20s, tables: 4}\nprofiles: [a, b]\n"
	review := "override:\n  simulate:\n    workload:\n      flags: {time: 6s}\n  profiles: [c]\n  extra: x\n"
	var doc struct {
		Override yaml.Node `yaml:"override"`
	}
	if err := yaml.Unmarshal([]byte(review), &doc); err != nil {
		t.Fatal(err)
	}
	m, err := mergeOverride("c.yaml", []byte(base), "r.yaml", &doc.Override)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := yaml.Unmarshal(m.text, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "c", "simulate": map[string]any{"hosts": 1, "workload": map[string]any{"flags": map[string]any{"time": "6s", "tables": 4}}},
		"profiles": []any{"c"}, "extra": "x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
	lines := strings.Split(string(m.text), "\n")
	for n, l := range lines {
		at := m.origin[n+1]
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "name:") && at != "c.yaml:1",
			strings.Contains(l, "6s") && at != "r.yaml:4 (the override)",
			strings.HasPrefix(l, "extra:") && at != "r.yaml:6 (the override)":
			t.Errorf("line %d %q comes from %q", n+1, l, at)
		}
	}
}

func TestLoadReviewFull(t *testing.T) {
	rf, err := LoadReview(filepath.Join("..", "review-full.yaml"))
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
	if got := f.Campaign.Simulated().Workload.Flags["time"]; got != "6s" {
		t.Errorf("sysbench-4vm with the review's override: simulated time %v, want 6s", got)
	}
}

// TestReviewFileErrorsNameTheirLines: the review file's own errors (name,
// on-failure, a campaign file that is not there) name its line, as a
// campaign file's do.
func TestReviewFileErrorsNameTheirLines(t *testing.T) {
	dir := t.TempDir()
	review := filepath.Join(dir, "r.yaml")
	text := "kind: review\nname: 'bad name'\non-failure: maybe\ncampaigns:\n  - file: missing.yaml\n"
	if err := os.WriteFile(review, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadReview(review)
	for _, want := range []string{review + `:2: name: "bad name" must be`, review + `:3: on-failure: "maybe" is not stop or continue`,
		review + ":5: campaigns[0]: ", "missing.yaml"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadReview: %v\nwant %q", err, want)
		}
	}
}
