package parmfile

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/internal/golden"
)

// parseErrors unwraps the ParseErrors of an errors.Join; ok is false when
// some error is not a ParseError.
func parseErrors(err error) (list []*ParseError, ok bool) {
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		var pe *ParseError
		if errors.As(err, &pe) {
			return []*ParseError{pe}, true
		}
		return nil, false
	}
	for _, e := range joined.Unwrap() {
		var pe *ParseError
		if !errors.As(e, &pe) {
			return list, false
		}
		list = append(list, pe)
	}
	return list, true
}

// checkErrorLines fails when an error of Parse or Validate names a line
// the input does not have, or, for a keyword error of Parse, a line that
// does not hold the keyword.
func checkErrorLines(t *testing.T, stage string, data []byte, err error, keywordOnLine bool) {
	t.Helper()
	if err == nil {
		return
	}
	list, ok := parseErrors(err)
	if !ok {
		t.Fatalf("%s: an error is not a *ParseError: %v", stage, err)
	}
	lines := strings.Split(string(data), "\n")
	for _, pe := range list {
		if pe.Line < 0 || pe.Line > len(lines) {
			t.Fatalf("%s: error names line %d of a %d-line input: %v", stage, pe.Line, len(lines), pe)
		}
		if !keywordOnLine || pe.Line == 0 || pe.Keyword == "" {
			continue
		}
		word, _, _ := strings.Cut(pe.Keyword, " (")
		if _, name, ok := strings.Cut(word, "="); ok {
			word = name // "sd=sd1": the kind may be abbreviated, the name is not
		}
		// clean drops a stray ')' and split the quotes: compare without them.
		strip := strings.NewReplacer("(", "", ")", "", `"`, "", " ", "", "\t", "")
		if !strings.Contains(asciiLower(strip.Replace(lines[pe.Line-1])), asciiLower(strip.Replace(word))) {
			t.Fatalf("%s: error names line %d, which does not hold %q (%q): %v", stage, pe.Line, word, lines[pe.Line-1], pe)
		}
	}
}

// FuzzParse: Parse, Validate, Runs, Text and Describe never panic on any
// input, every error is a ParseError naming a line the input has, a
// keyword error of Parse names the line where the keyword is, and what
// Parse and Validate accept prints as a file that parses again.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		fullFile,
		"sd=sd1,lun=/tmp/café.img,size=1m\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
		"sd=sd1,lun=/dev/x\nwd=wd1,sd=sd1,\n  xfersize=3k,\n  rdpct=200,ünknown=1\nrd=rd1,wd=wd1,iorate=max\n",
		"sd=sd1,lun=\"/dev/é(1)\",si=1g\nwd=wd1,sd=sd1,xf=(4k,50,\n8k,50)\n,rd=50\nrd=rd1,wd=wd1,io=(100-1000,100),el=10,in=5\n",
		"\xff\xfe\x00sd=\x80",
		"sd=sd1,lun=/dev/x\n\u00a0,threads=4\n",
		"rd=rd1,wd=wd1,forthreads=(128,1,16,128,1,16),iorate=max\n",
	} {
		f.Add([]byte(seed))
	}
	golden.AddSeedFiles(f, filepath.Join("profiles", "*.vdb"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.vdb", data)
		checkErrorLines(t, "Parse", data, err, true)
		if err != nil {
			return
		}
		verr := p.Validate()
		checkErrorLines(t, "Validate", data, verr, false)
		runs, err := p.Runs()
		checkErrorLines(t, "Runs", data, err, false)
		seen := map[string]bool{}
		for _, r := range runs {
			if seen[RunName(r.Name)] {
				t.Fatalf("two runs named %s", r.Name)
			}
			seen[RunName(r.Name)] = true
		}
		_, _ = p.Describe()
		text := p.Text()
		if verr != nil {
			return
		}
		if _, err := Parse("again.vdb", []byte(text)); err != nil {
			t.Fatalf("the accepted file prints as a file that does not parse:\n%s\n%v", text, err)
		}
	})
}
