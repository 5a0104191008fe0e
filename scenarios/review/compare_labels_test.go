package review

import (
	"strings"
	"testing"
)

// TestDistinctEntries: a review directory that holds a test twice in one
// group (two campaigns of the same workload and VM count) has each entry
// labelled with its campaign's directory, so that a warning never names
// the same input twice; other entries keep the input's name.
func TestDistinctEntries(t *testing.T) {
	e := func(input, campaign, threads string) entry {
		return entry{input: input, campaign: campaign,
			test: testFigures{key: refSysbench, title: refSysbench, protocol: map[string]string{"threads": threads}}}
	}
	for _, tc := range []struct {
		name  string
		group []entry
		want  []string
	}{
		{"inputs apart", []entry{e("r3-a", "sb-1", "32"), e("r3-b", "sb-1", "32")}, []string{"r3-a", "r3-b"}},
		{"one review twice", []entry{e("r3-a", "sb-1", "32"), e("r3-a", "sb-2", "16"), e("r3-b", "sb-1", "32")},
			[]string{"r3-a/sb-1", "r3-a/sb-2", "r3-b"}},
	} {
		distinctEntries(tc.group)
		var got []string
		for _, g := range tc.group {
			got = append(got, g.input)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: labels %v, want %v", tc.name, got, tc.want)
		}
		_, left := matchProtocol(tc.group)
		for _, l := range left {
			if a, b, _ := strings.Cut(l, "'s "); strings.Contains(b, "comparison with "+a+":") {
				t.Errorf("%s: a warning names one input twice: %s", tc.name, l)
			}
		}
	}
}
