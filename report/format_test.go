package report

import (
	"math"
	"testing"
	"time"
)

func TestGrouped(t *testing.T) {
	for _, tc := range []struct {
		v      float64
		digits int
		want   string
	}{
		{0, 1, "0.0"}, {999.94, 1, "999.9"}, {999.96, 1, "1,000.0"}, {7567.34, 1, "7,567.3"},
		{329166, 1, "329,166.0"}, {-1234567.25, 2, "-1,234,567.25"}, {-0.04, 1, "-0.0"}, {-123, 1, "-123.0"},
		{2358609.4, 0, "2,358,609"}, {-100000, 0, "-100,000"}, {12, 0, "12"},
		{math.NaN(), 1, "NaN"}, {math.Inf(1), 0, "+Inf"}, {math.Inf(-1), 0, "-Inf"},
	} {
		if got := Grouped(tc.v, tc.digits); got != tc.want {
			t.Errorf("Grouped(%v, %d) = %q, want %q", tc.v, tc.digits, got, tc.want)
		}
	}
}

func TestLatencies(t *testing.T) {
	if got := Millis(1500 * time.Microsecond); got != 1.5 {
		t.Errorf("Millis(1.5ms) = %v", got)
	}
	if got := FormatMillis(1500*time.Microsecond, 2); got != "1.50" {
		t.Errorf("FormatMillis(1.5ms, 2) = %q", got)
	}
	if got := FormatMillis(123456*time.Nanosecond, 3); got != "0.123" {
		t.Errorf("FormatMillis(123.456µs, 3) = %q", got)
	}
	for d, want := range map[time.Duration]string{
		0: "0.0 µs", 87500 * time.Nanosecond: "87.5 µs", 999949 * time.Nanosecond: "999.9 µs",
		time.Millisecond: "1.000 ms", 1204 * time.Microsecond: "1.204 ms", 2 * time.Second: "2000.000 ms",
	} {
		if got := Latency(d); got != want {
			t.Errorf("Latency(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 512: "512 bytes", 1023: "1023 bytes", KiB: "1.0 KiB",
		1536: "1.5 KiB", 81604378624: "76.0 GiB", 3 * TiB: "3.0 TiB", math.MaxInt64: "8.0 EiB", -5000: "-5000 bytes"} {
		if got := BinaryBytes(n); got != want {
			t.Errorf("BinaryBytes(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{999: "999 bytes", KB: "1.0 kB", 81604378624: "81.6 GB", 2 * TB: "2.0 TB",
		1500 * MB: "1.5 GB", math.MaxInt64: "9.2 EB"} {
		if got := DecimalBytes(n); got != want {
			t.Errorf("DecimalBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
