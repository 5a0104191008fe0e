package target

import "strings"

// shQuote quotes s as one word for a POSIX shell: it wraps s in single
// quotes, inside which nothing is special to sh (newlines included), and
// writes each single quote of s as these four bytes (close the quote, an
// escaped quote, reopen):
//
//	'\''
//
// The empty string becomes a pair of single quotes.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shJoin quotes each word and joins them with spaces.
func shJoin(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shQuote(w)
	}
	return strings.Join(q, " ")
}
