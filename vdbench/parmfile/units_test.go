package parmfile

import (
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"512", 512}, {"4096", 4096}, {"4k", 4096}, {"4K", 4096}, {"4KiB", 4096},
		{"64k", 65536}, {"1m", 1 << 20}, {"1.5m", 3 << 19}, {"1g", 1 << 30}, {"2G", 2 << 30},
		{"1t", 1 << 40}, {"1TiB", 1 << 40}, {" 8k ", 8192}, {"0.5k", 512},
	} {
		got, err := ParseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "k", "4x", "-4k", "4kk", "0.3k", "1e3", "nan", "inf", "512b", "4 k", "9000000t", "0x10"} {
		_, err := ParseSize(in)
		if err == nil {
			t.Errorf("ParseSize(%q): no error", in)
			continue
		}
		if in != "9000000t" && !strings.Contains(err.Error(), "valid:") {
			t.Errorf("ParseSize(%q): error %q does not list the valid forms", in, err)
		}
		if in != "" && !strings.Contains(err.Error(), in) {
			t.Errorf("ParseSize(%q): error %q does not name the value", in, err)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 512: "512", 1000: "1000", 4096: "4k", 61440: "60k",
		1 << 20: "1m", 3 << 19: "1536k", 1 << 30: "1g", 5 << 40: "5t"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
		if back, err := ParseSize(FormatSize(n)); err != nil || back != n {
			t.Errorf("ParseSize(FormatSize(%d)) = %d, %v", n, back, err)
		}
	}
}

func TestParseSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{"60": time.Minute, "5s": 5 * time.Second, "2m": 2 * time.Minute,
		"1h": time.Hour, "1.5m": 90 * time.Second, "0": 0} {
		if got, err := parseSeconds(in); err != nil || got != want {
			t.Errorf("parseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "1.5", "1d", "1e3"} {
		if _, err := parseSeconds(in); err == nil {
			t.Errorf("parseSeconds(%q): no error", in)
		}
	}
}

func TestExpandList(t *testing.T) {
	for _, c := range []struct {
		items []string
		parse func(string) (float64, error)
		want  []float64
	}{
		{[]string{"10-120", "10"}, parsePositive, []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120}},
		{[]string{"1-64", "d"}, parseCount, []float64{1, 2, 4, 8, 16, 32, 64}},
		{[]string{"4k-64k", "d"}, sizeValue, []float64{4096, 8192, 16384, 32768, 65536}},
		{[]string{"4k-16k", "4k"}, sizeValue, []float64{4096, 8192, 12288, 16384}},
		{[]string{"0.1-0.3", "0.1"}, parsePositive, []float64{0.1, 0.2, 0.30000000000000004}},
		{[]string{"5", "7"}, parsePositive, []float64{5, 7}},
	} {
		got, err := expandList(c.items, c.parse)
		if err != nil || len(got) != len(c.want) {
			t.Errorf("expandList(%q) = %v, %v; want %v", c.items, got, err, c.want)
			continue
		}
		for i := range got {
			if d := got[i] - c.want[i]; d > 1e-9 || d < -1e-9 {
				t.Errorf("expandList(%q) = %v; want %v", c.items, got, c.want)
				break
			}
		}
	}
	for _, items := range [][]string{{"10-5", "1"}, {"1-10", "0"}, {"1-100000", "1"}, {"0-8", "d"}, {"1-8", "x"}} {
		if _, err := expandList(items, parsePositiveOrZero); err == nil {
			t.Errorf("expandList(%q): no error", items)
		}
	}
}

func parsePositiveOrZero(s string) (float64, error) {
	if strings.TrimSpace(s) == "0" {
		return 0, nil
	}
	return parsePositive(s)
}

func TestXferString(t *testing.T) {
	for _, c := range []struct {
		x    XferSize
		want string
		mean float64
	}{
		{Single(4096), "4k", 4096},
		{XferSize{Sizes: []int64{4096, 8192}, Pcts: []float64{50, 50}}, "(4k,50,8k,50)", 6144},
		{XferSize{Min: 4096, Max: 65536, Align: 4096}, "(4k,64k,4k)", 34816},
	} {
		if got := c.x.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
		if got := c.x.Mean(); got != c.mean {
			t.Errorf("%s: Mean() = %v, want %v", c.want, got, c.mean)
		}
	}
}
