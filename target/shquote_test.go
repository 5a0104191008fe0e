//go:build unix

package target

import (
	"os/exec"
	"testing"
)

func TestShQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "''"},
		{"abc", "'abc'"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"'", `''\'''`},
		{"''", `''\'''\'''`},
		{"a\nb", "'a\nb'"},
		{`$HOME "x" \n`, `'$HOME "x" \n'`},
		{"`id`;$(id)&|<>*?[]~#!", "'`id`;$(id)&|<>*?[]~#!'"},
		{"tab\there", "'tab\there'"},
	}
	for _, tt := range tests {
		got := shQuote(tt.in)
		if got != tt.want {
			t.Errorf("shQuote(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// The real shell must give back the word unchanged.
		out, err := exec.Command("/bin/sh", "-c", "printf '%s' "+got).Output()
		if err != nil || string(out) != tt.in {
			t.Errorf("sh -c printf %s = %q, %v; want %q", got, out, err, tt.in)
		}
	}
	if got := shJoin("a b", "c'd"); got != `'a b' 'c'\''d'` {
		t.Errorf("shJoin = %q", got)
	}
}
