package flagvalue

import (
	"testing"
	"time"
)

func TestParseSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{"60": time.Minute, "0.5": 500 * time.Millisecond, "1m30s": 90 * time.Second, "0": 0} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestParsePort(t *testing.T) {
	for in, want := range map[string]int{"1": 1, "5432": 5432, " 3306 ": 3306, "65535": 65535, "0": -1, "-1": -1, "65536": -1, "99999": -1, "": -1, "x": -1} {
		got, err := ParsePort(in)
		if want < 0 && err == nil || want >= 0 && (err != nil || got != want) {
			t.Errorf("ParsePort(%q) = %d, %v; want %d (-1: an error)", in, got, err, want)
		}
	}
}
