package review

import "testing"

// The † footnote is printed only under a table with a † profile.
func TestSuiteApproximationFootnote(t *testing.T) {
	for _, tc := range []struct {
		titles []string
		want   bool
	}{{[]string{"4K random read", "64K sequential write"}, false}, {[]string{"4K random read", "SQL †"}, true}, {nil, false}} {
		sr := &suiteReview{}
		for _, title := range tc.titles {
			sr.rows = append(sr.rows, suiteRow{title: title})
		}
		if got := sr.approximated(); got != tc.want {
			t.Errorf("%q: approximated %v, want %v", tc.titles, got, tc.want)
		}
	}
}
