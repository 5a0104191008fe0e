// Package textfmt formats text for people, for every package that prints
// it: sentences (Capitalize). It imports nothing from vmbench.
package textfmt

import (
	"unicode"
	"unicode/utf8"
)

// Capitalize returns s with its first rune in title case, as a sentence
// starts: "harness overhead" is "Harness overhead", "élan" is "Élan". An
// empty s, a first rune without a capital (a digit, a '(') and a first
// byte that is not UTF-8 leave s as it is.
func Capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToTitle(r)) + s[n:]
}
