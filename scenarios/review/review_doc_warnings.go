package review

import (
	"path/filepath"
	"slices"
	"strings"
)

// sourcedWarning is a report's warning and what it is about: a test of a
// review ("sysbench-8vm"), an input's test ("gen4, sysbench-8vm-...").
type sourcedWarning struct{ about, text string }

// foldWarnings writes each distinct warning once, in the order first
// given, prefixed with what it is about: "A: text", or, for a warning
// several tests give word for word (each campaign of a simulated review
// is simulated), "A, B and C: text", so that a page of six simulated
// campaigns says so once, naming them. Labels holding a comma are joined
// with "; ".
func foldWarnings(ws []sourcedWarning) []string {
	var order []string
	about := map[string][]string{}
	for _, w := range ws {
		if _, ok := about[w.text]; !ok {
			order = append(order, w.text)
		}
		if !slices.Contains(about[w.text], w.about) {
			about[w.text] = append(about[w.text], w.about)
		}
	}
	out := make([]string, len(order))
	for i, text := range order {
		out[i] = joinLabels(about[text]) + ": " + text
	}
	return out
}

// joinLabels lists labels as prose: "A", "A and B", "A, B and C", or
// "A; B; C" when a label holds a comma.
func joinLabels(labels []string) string {
	if slices.ContainsFunc(labels, func(l string) bool { return strings.Contains(l, ",") }) {
		return strings.Join(labels, "; ")
	}
	if n := len(labels); n > 1 {
		return strings.Join(labels[:n-1], ", ") + " and " + labels[n-1]
	}
	return strings.Join(labels, "")
}

// name is the report's test as a review names it: the campaign's or the
// block suite's name.
func (r *Report) name() string {
	if r.Review != nil {
		return r.Review.Campaign
	}
	return r.suite.suite.Name
}

// warnings are the report's warnings (a simulated, incomplete or
// client-bound run), each about the input and, when it holds several
// tests (a review directory), the test's directory.
func (r *Report) warnings(input string) []sourcedWarning {
	var w []string
	if r.Review != nil {
		w = r.Review.warnings()
	} else {
		w = r.suite.warnings()
	}
	if title := filepath.Base(r.Dir); title != input {
		input += ", " + title
	}
	out := make([]sourcedWarning, len(w))
	for i := range w {
		out[i] = sourcedWarning{about: input, text: w[i]}
	}
	return out
}
