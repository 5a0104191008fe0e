package textfmt

import "testing"

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
