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
