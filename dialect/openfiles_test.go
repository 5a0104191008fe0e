package dialect

import "testing"

func TestFilesNeeded(t *testing.T) {
	for _, tc := range []struct {
		d     Driver
		conns int
		want  uint64
	}{
		{MySQL, 0, SpareFiles},
		{MySQL, 100, 164},
		{SQLServer, 10, 74},
		{SQLite, 100, 264},
		{SQLite, 40000, 80064},
	} {
		if got := FilesNeeded(tc.d, tc.conns); got != tc.want {
			t.Errorf("FilesNeeded(%s, %d) = %d, want %d", tc.d, tc.conns, got, tc.want)
		}
	}
}
