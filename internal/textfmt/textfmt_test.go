package textfmt

import (
	"math"
	"testing"
)

func TestCapitalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"a", "A"},
		{"harness overhead", "Harness overhead"},
		{"Already", "Already"},
		{"élan", "Élan"},               // two-byte first rune
		{"ωmega", "Ωmega"},             // Greek
		{"ǆemal", "ǅemal"},             // a digraph's title case is not its upper case (Ǆ)
		{"日本", "日本"},                   // no case: unchanged
		{"8 VMs", "8 VMs"},             // a digit
		{"(simulated)", "(simulated)"}, // punctuation
		{"\xffabc", "\xffabc"},         // not UTF-8: unchanged, not replaced by U+FFFD
		{"\xc3", "\xc3"},               // a truncated two-byte rune
		{"simulated: not a real vCenter", "Simulated: not a real vCenter"},
	} {
		if got := Capitalize(tc.in); got != tc.want {
			t.Errorf("Capitalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12345: "12,345", 123456: "123,456",
		1234567: "1,234,567", -1: "-1", -999: "-999", -1000: "-1,000", -1234: "-1,234", -123456: "-123,456",
		math.MaxInt64: "9,223,372,036,854,775,807", math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestGroup(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"-", "-"}, {"0", "0"}, {"-0", "-0"}, {"100", "100"}, {"1000", "1,000"},
		{"100000000000000000000", "100,000,000,000,000,000,000"}, {"-2358609", "-2,358,609"},
	} {
		if got := Group(tc.in); got != tc.want {
			t.Errorf("Group(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
