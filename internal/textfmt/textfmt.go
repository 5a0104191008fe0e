// Package textfmt formats text for people, for every package that prints
// it, however low: sentences (Capitalize) and whole numbers with
// thousands separators (Thousands, Group). It imports nothing from
// vmbench, so that dialect (which may import nothing of ours) and report
// share one implementation.
package textfmt

import (
	"strconv"
	"strings"
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

// Thousands writes n with a comma between groups of three digits:
// -1234567 is "-1,234,567".
func Thousands(n int64) string { return Group(strconv.FormatInt(n, 10)) }

// Group puts a comma between groups of three digits of digits, a run of
// ASCII digits with an optional leading minus sign (the integer part of a
// formatted number): "-1234567" is "-1,234,567".
func Group(digits string) string {
	var b strings.Builder
	if rest, neg := strings.CutPrefix(digits, "-"); neg {
		b.WriteByte('-')
		digits = rest
	}
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(digits[i])
	}
	return b.String()
}
