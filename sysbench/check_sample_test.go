package sysbench

import "testing"

// TestSampleRanges: a table of up to 5,000 ids is counted whole; a larger
// one in 10 windows of 500 ids, the first at id 1, the last ending at the
// highest id, in order and apart.
func TestSampleRanges(t *testing.T) {
	for _, span := range []int64{1, 300, 5000, 5001, 10000, 10_000_000, 1<<31 - 1} {
		rs := sampleRanges(span)
		if span <= sampleWindows*sampleWindowIDs {
			if len(rs) != 1 || rs[0] != [2]int64{1, span} {
				t.Errorf("span %d: %v, want one window 1..%d", span, rs, span)
			}
			continue
		}
		if len(rs) != sampleWindows || rs[0][0] != 1 || rs[len(rs)-1][1] != span {
			t.Errorf("span %d: %v, want %d windows from 1 to %d", span, rs, sampleWindows, span)
		}
		for i, r := range rs {
			if r[1]-r[0]+1 != sampleWindowIDs || i > 0 && r[0] <= rs[i-1][1] {
				t.Errorf("span %d: window %d is %v (after %v), want %d ids after the last window", span, i, r, rs[max(i-1, 0)], sampleWindowIDs)
			}
		}
	}
}

// TestSampleWords: what a count says, and the share it admits.
func TestSampleWords(t *testing.T) {
	for _, tc := range []struct {
		s            idSample
		words        string
		most, halfOK bool
	}{
		{idSample{windows: 1, width: 300, span: 300, ids: 300, found: 300}, "COUNT(*) of ids 1..300 found 300 rows", true, true},
		{idSample{windows: 1, width: 300, span: 300, ids: 300, found: 296}, "COUNT(*) of ids 1..300 found 296 rows", false, true},
		{idSample{windows: 10, width: 500, span: 10000, ids: 5000, found: 501},
			"COUNT(*) in 10 windows of 500 ids spread evenly over ids 1..10,000 found 501 rows in their 5,000 ids (10.0%): about 1,002 rows in ids 1..10,000",
			false, false},
		{idSample{windows: 10, width: 500, span: 10_000_000, ids: 5000, found: 4950},
			"COUNT(*) in 10 windows of 500 ids spread evenly over ids 1..10,000,000 found 4,950 rows in their 5,000 ids (99.0%): about 9,900,000 rows in ids 1..10,000,000",
			true, true},
	} {
		if got := tc.s.method(); got != tc.words {
			t.Errorf("%+v:\n got %s\nwant %s", tc.s, got, tc.words)
		}
		if tc.s.atLeast(99, 100) != tc.most || tc.s.atLeast(1, 2) != tc.halfOK {
			t.Errorf("%+v: 99%% %v, half %v; want %v, %v", tc.s, tc.s.atLeast(99, 100), tc.s.atLeast(1, 2), tc.most, tc.halfOK)
		}
	}
}
