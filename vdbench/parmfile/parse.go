package parmfile

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseError is one problem in a parameter file. Parse and Validate return
// all of them at once, joined with errors.Join.
type ParseError struct {
	File string
	// Line is 0 for a problem of the whole file.
	Line int
	// Keyword is the keyword as written (an abbreviation shows its full
	// name too), or the definition such as "sd=sd1".
	Keyword string
	Msg     string
}

func (e *ParseError) Error() string {
	var b strings.Builder
	if e.File != "" || e.Line > 0 {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Keyword != "" {
		kw := e.Keyword
		if !utf8.ValidString(kw) {
			kw = strconv.Quote(kw) // a keyword of random bytes, as written
		}
		b.WriteString(kw + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// asciiLower lowers the ASCII letters of s and keeps every other byte as
// it is (keywords are ASCII; strings.ToLower would turn invalid UTF-8
// into U+FFFD, so a message could not show what was written).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// parmErrors collects ParseErrors.
type parmErrors struct {
	file string
	list []error
}

func (pr *parmErrors) add(line int, keyword, format string, args ...any) {
	pr.list = append(pr.list, &ParseError{File: pr.file, Line: line, Keyword: keyword, Msg: fmt.Sprintf(format, args...)})
}

func (pr *parmErrors) err() error { return errors.Join(pr.list...) }

// ParseFile reads and parses a parameter file.
func ParseFile(path string) (*Params, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads a vdbench parameter file of the subset vmbench runs (see the
// package documentation). file names the input in error messages. Every
// problem is reported, each as "file:line: keyword: what is wrong (valid:
// ...)". Parse checks each value; Validate checks the definitions against
// each other.
func Parse(file string, data []byte) (*Params, error) {
	if file == "" {
		file = "parameters"
	}
	if line, ok := binaryLine(data); ok {
		return nil, &ParseError{File: file, Line: line, Msg: "not a text parameter file (a NUL or control byte, or bytes that are not UTF-8)"}
	}
	ps := &parmParser{pr: parmErrors{file: file}, p: &Params{File: file},
		sdDef: defaultSD(), wdDef: defaultWD(), rdDef: defaultRD()}
	for _, d := range ps.scan(string(data)) {
		ps.definition(d)
	}
	for i := range ps.p.RDs {
		finishRD(&ps.p.RDs[i])
	}
	if err := ps.pr.err(); err != nil {
		return nil, err
	}
	return ps.p, nil
}

// finishRD applies the defaults that depend on other values.
func finishRD(rd *RD) {
	if rd.Interval == 0 {
		rd.Interval = min(rd.Elapsed/2, DefaultMaxInterval).Truncate(1e9)
		rd.Interval = max(rd.Interval, 1e9)
	}
	if rd.Curve == nil {
		rd.Curve = DefaultCurve()
	}
}

// parm is one keyword=value of a definition.
type parm struct {
	key   string   // as written, lower case
	items []string // one value, or the values of a (list)
	list  bool
	line  int
}

// one returns the single value of p.
func (p parm) one() (string, error) {
	if len(p.items) != 1 {
		return "", fmt.Errorf("takes one value, not a list of %d", len(p.items))
	}
	return p.items[0], nil
}

type parmDef struct{ parms []parm }

type parmParser struct {
	pr                    parmErrors
	p                     *Params
	stage                 int // 0 general, 1 sd, 2 wd, 3 rd
	sdDef                 SD
	wdDef                 WD
	rdDef                 RD
	sdNames, wdNames, rds map[string]int
}

// scan splits the file into definitions. A definition continues on the
// next line when its line ends with a comma or the next line starts with
// one. Lines starting with *, # or / are comments (so is the rest of a line
// after a blank and * or #), and a line starting with eof ends the file.
func (ps *parmParser) scan(data string) []parmDef {
	var defs []parmDef
	var text []byte
	var lines []int
	depth, inDef, endsComma := 0, false, false
	flush := func(line int) {
		if inDef {
			if depth > 0 {
				ps.pr.add(line, "", "unclosed parenthesis in the definition that starts on line %d", lines[0])
			} else if d := ps.split(text, lines); len(d.parms) > 0 {
				defs = append(defs, d)
			}
		}
		text, lines, depth, inDef = nil, nil, 0, false
	}
	last := 0
	for i, raw := range strings.Split(data, "\n") {
		ln := i + 1
		s := strings.TrimSpace(raw)
		if s == "" || strings.ContainsRune("*#/", rune(s[0])) {
			continue
		}
		if strings.HasPrefix(strings.ToLower(s), "eof") {
			break
		}
		if !(inDef && (endsComma || s[0] == ',')) {
			if s[0] == ',' {
				ps.pr.add(ln, "", "this line starts with a comma, which continues a definition, but no definition precedes it")
				continue
			}
			flush(last)
			inDef = true
		}
		body := ps.clean(s, &depth, ln)
		text = append(text, body...)
		// One line number per byte (not per rune: split indexes bytes).
		for range len(body) {
			lines = append(lines, ln)
		}
		endsComma = strings.HasSuffix(body, ",")
		last = ln
	}
	flush(last)
	return defs
}

// clean drops blanks inside a (list), and stops at a blank outside one:
// vdbench ignores the rest of such a line, so vmbench accepts only a
// comment there.
func (ps *parmParser) clean(s string, depth *int, ln int) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			*depth++
		case c == ')':
			if *depth == 0 {
				ps.pr.add(ln, "", "')' without a matching '('")
				continue
			}
			*depth--
		case c == ' ' || c == '\t':
			if *depth > 0 {
				continue
			}
			rest := strings.TrimSpace(s[i:])
			if rest[0] != '*' && rest[0] != '#' {
				ps.pr.add(ln, "", "text after a blank: %q (vdbench ignores the rest of a line after a blank; join parameters with commas, or start a comment with * or #)", rest)
			}
			return b.String()
		}
		b.WriteByte(c)
	}
	if quoted {
		ps.pr.add(ln, "", "unclosed quote")
		b.WriteByte('"') // a quote never runs on into the next line
	}
	return b.String()
}

// split cuts a definition at the commas outside lists and quotes.
func (ps *parmParser) split(text []byte, lines []int) parmDef {
	var d parmDef
	start, depth, quoted := 0, 0, false
	for i := 0; i <= len(text); i++ {
		if i < len(text) {
			switch c := text[i]; {
			case c == '"':
				quoted = !quoted
			case quoted:
			case c == '(':
				depth++
			case c == ')':
				depth--
			}
			if text[i] != ',' || depth > 0 || quoted {
				continue
			}
		}
		if piece := strings.TrimSpace(string(text[start:i])); piece != "" {
			if p, ok := ps.parm(piece, lines[start]); ok {
				d.parms = append(d.parms, p)
			}
		}
		start = i + 1
	}
	return d
}

func (ps *parmParser) parm(piece string, line int) (parm, bool) {
	k, v, ok := strings.Cut(piece, "=")
	k, v = asciiLower(strings.TrimSpace(k)), strings.TrimSpace(v)
	switch {
	case !ok || k == "" || strings.ContainsAny(k, "()\""):
		// a keyword is a word: one with a parenthesis or a quote is a
		// stray value (it may even run over lines, as a list's pieces do)
		ps.pr.add(line, "", "expected keyword=value, found %q", piece)
		return parm{}, false
	case v == "":
		ps.pr.add(line, k, "no value after %s=", k)
		return parm{}, false
	}
	p := parm{key: k, line: line}
	if v[0] != '(' {
		if strings.ContainsAny(v, "()") && !strings.HasPrefix(v, `"`) {
			ps.pr.add(line, k, "misplaced parenthesis in %q (valid: a value, a list such as (4k,50,8k,50), or a quoted value such as \"/dev/x(1)\")", v)
			return parm{}, false
		}
		u, ok := unquote(v)
		if !ok {
			ps.pr.add(line, k, "misplaced quote in %s (valid: a value quoted from its start to its end, such as \"/data/a file\")", v)
			return parm{}, false
		}
		p.items = []string{u}
		return p, true
	}
	inner, closed := strings.CutSuffix(v[1:], ")")
	if !closed || strings.ContainsAny(strings.ReplaceAll(inner, `"`, ""), "()") {
		ps.pr.add(line, k, "malformed list %q (valid: values in one pair of parentheses, such as (4k,50,8k,50))", v)
		return parm{}, false
	}
	p.list = true
	for _, it := range strings.Split(inner, ",") {
		it, ok := unquote(strings.TrimSpace(it))
		if !ok {
			ps.pr.add(line, k, "misplaced quote in the list %s (valid: values quoted from their start to their end, such as (\"/dev/a\",\"/dev/b\"))", v)
			return parm{}, false
		}
		if it == "" {
			ps.pr.add(line, k, "empty value in the list %q", v)
			return parm{}, false
		}
		p.items = append(p.items, it)
	}
	return p, true
}

// unquote returns v without the quotes around it; ok is false when v has
// a quote anywhere else (a value cannot hold one).
func unquote(v string) (string, bool) {
	if inner, ok := strings.CutPrefix(v, `"`); ok {
		inner, ok = strings.CutSuffix(inner, `"`)
		return inner, ok && len(v) >= 2 && !strings.Contains(inner, `"`)
	}
	return v, !strings.Contains(v, `"`)
}

// keywordSet is the keywords of one kind of definition.
type keywordSet struct {
	what  string
	known []string
	// alias maps other spellings to a known keyword.
	alias map[string]string
	// unsupported are vdbench keywords vmbench refuses, with a hint.
	unsupported map[string]string
}

// resolve finds the keyword key abbreviates. An exact name wins; otherwise
// key must be the prefix of exactly one keyword, vdbench's or vmbench's.
func (ps *parmParser) resolve(set *keywordSet, key string, line int) (string, bool) {
	canon := func(k string) (string, bool) {
		if slices.Contains(set.known, k) {
			return k, true
		}
		a, ok := set.alias[k]
		return a, ok
	}
	if c, ok := canon(key); ok {
		return c, true
	}
	if _, ok := set.unsupported[key]; ok {
		ps.unsupported(set, key, key, line)
		return "", false
	}
	found := map[string]bool{} // canonical or unsupported name -> supported
	for _, k := range slices.Concat(set.known, mapKeys(set.alias)) {
		if strings.HasPrefix(k, key) {
			c, _ := canon(k)
			found[c] = true
		}
	}
	for k := range set.unsupported {
		if strings.HasPrefix(k, key) {
			found[k] = false
		}
	}
	switch names := mapKeys(found); len(names) {
	case 1:
		if found[names[0]] {
			return names[0], true
		}
		ps.unsupported(set, key, names[0], line)
	case 0:
		hint := ""
		if slices.Contains([]string{"sd", "wd", "rd"}, key) {
			hint = "; a new definition starts on a line of its own, after a line that does not end with a comma"
		}
		ps.pr.add(line, key, "unknown %s keyword (valid: %s)%s", set.what, strings.Join(set.known, ", "), hint)
	default:
		ps.pr.add(line, key, "ambiguous abbreviation: it could be %s (write more of the keyword)", strings.Join(names, ", "))
	}
	return "", false
}

func (ps *parmParser) unsupported(set *keywordSet, written, key string, line int) {
	msg := fmt.Sprintf("%s= is a vdbench keyword that is not supported by vmbench", key)
	if h := set.unsupported[key]; h != "" {
		msg += "; " + h
	}
	ps.pr.add(line, written, "%s (vmbench's %s keywords: %s)", msg, set.what, strings.Join(set.known, ", "))
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// kwLabel names a keyword in a message: as written, plus its full name when
// it was abbreviated.
func kwLabel(written, canon string) string {
	if written == canon {
		return written
	}
	return written + " (" + canon + ")"
}

const (
	stageGeneral = iota
	stageSD
	stageWD
	stageRD
)

var stageNames = [...]string{"general parameters", "sd=", "wd=", "rd="}

// definition handles one definition: general parameters, sd, wd or rd.
func (ps *parmParser) definition(d parmDef) {
	first := d.parms[0]
	kw, ok := ps.resolve(&topKeywords, first.key, first.line)
	if !ok {
		return
	}
	stage := map[string]int{"sd": stageSD, "wd": stageWD, "rd": stageRD}[kw]
	if stage < ps.stage {
		ps.pr.add(first.line, first.key, "%s must come before %s definitions (vdbench reads general parameters, then sd, wd and rd, in this order)", stageNames[stage], stageNames[ps.stage])
		return
	}
	ps.stage = stage
	if stage == stageGeneral {
		for _, p := range d.parms {
			if kw, ok := ps.resolve(&topKeywords, p.key, p.line); ok {
				ps.general(kw, p)
			}
		}
		return
	}
	name, err := first.one()
	if err == nil {
		err = checkName(name, false)
	}
	if err != nil {
		ps.pr.add(first.line, first.key, "%v", err)
		return
	}
	switch kw {
	case "sd":
		ps.sd(name, first.line, d.parms[1:])
	case "wd":
		ps.wd(name, first.line, d.parms[1:])
	case "rd":
		ps.rd(name, first.line, d.parms[1:])
	}
}

var generalWhy = map[string]string{
	"debug":       "vdbench's internal debugging switches; they have no meaning in vmbench",
	"data_errors": "vdbench's limit of I/O and data-validation errors before it stops; vmbench stops at the first I/O error and does no data validation",
}

func (ps *parmParser) general(kw string, p parm) {
	if _, ok := generalWhy[kw]; !ok {
		ps.pr.add(p.line, kwLabel(p.key, kw), "%s= starts a definition and cannot follow general parameters on their line", kw)
		return
	}
	v, err := p.one()
	if err != nil {
		ps.pr.add(p.line, kwLabel(p.key, kw), "%v", err)
		return
	}
	ps.p.Ignored = append(ps.p.Ignored, IgnoredParam{Keyword: kw, Value: v, Why: generalWhy[kw], Line: p.line})
}

// apply runs set's keywords of one definition through fn, refusing
// duplicates.
func (ps *parmParser) apply(set *keywordSet, parms []parm, fn func(kw string, p parm) error) {
	seen := map[string]bool{}
	for _, p := range parms {
		kw, ok := ps.resolve(set, p.key, p.line)
		if !ok {
			continue
		}
		key := kw
		if kw == "wrpct" {
			key = "rdpct"
		}
		if seen[key] {
			ps.pr.add(p.line, kwLabel(p.key, kw), "given twice in this definition")
			continue
		}
		seen[key] = true
		if err := fn(kw, p); err != nil {
			ps.pr.add(p.line, kwLabel(p.key, kw), "%v", err)
		}
	}
}

func (ps *parmParser) sd(name string, line int, parms []parm) {
	sd := ps.sdDef.Clone()
	sd.Name, sd.Line = name, line
	ps.apply(&sdKeywords, parms, func(kw string, p parm) error {
		setKeyLine(&sd.keyLines, kw, p.line)
		return applySD(&sd, kw, p)
	})
	if name == "default" {
		ps.sdDef = sd
		ps.sdDef.Name, ps.sdDef.Line = "", 0
		return
	}
	if ps.dup(&ps.sdNames, "sd", name, line) {
		ps.p.SDs = append(ps.p.SDs, sd)
	}
}

func (ps *parmParser) wd(name string, line int, parms []parm) {
	wd := ps.wdDef.clone()
	wd.Name, wd.Line = name, line
	ps.apply(&wdKeywords, parms, func(kw string, p parm) error {
		if kw == "wrpct" {
			setKeyLine(&wd.keyLines, "rdpct", p.line)
		}
		setKeyLine(&wd.keyLines, kw, p.line)
		return applyWD(&wd, kw, p)
	})
	if name == "default" {
		ps.wdDef = wd
		ps.wdDef.Name, ps.wdDef.Line = "", 0
		return
	}
	if ps.dup(&ps.wdNames, "wd", name, line) {
		ps.p.WDs = append(ps.p.WDs, wd)
	}
}

func (ps *parmParser) rd(name string, line int, parms []parm) {
	rd := ps.rdDef.clone()
	rd.Name, rd.Line = name, line
	var curve parm
	ps.apply(&rdKeywords, parms, func(kw string, p parm) error {
		if kw == "curve" {
			curve = p
		}
		setKeyLine(&rd.keyLines, kw, p.line)
		if p.key != kw {
			if rd.keyWritten == nil {
				rd.keyWritten = map[string]string{}
			}
			rd.keyWritten[kw] = p.key
		} else {
			delete(rd.keyWritten, kw)
		}
		return applyRD(&rd, kw, p)
	})
	if curve.line > 0 && !rd.IORate.Curve {
		ps.pr.add(curve.line, kwLabel(curve.key, "curve"), "rd=%s: curve= is given but iorate= is not curve (valid: iorate=curve with curve=, or no curve=)", name)
	}
	if name == "default" {
		ps.rdDef = rd
		ps.rdDef.Name, ps.rdDef.Line = "", 0
		return
	}
	if ps.dup(&ps.rds, "rd", name, line) {
		ps.p.RDs = append(ps.p.RDs, rd)
	}
}

// dup records a name and reports a second definition of it.
func (ps *parmParser) dup(names *map[string]int, kind, name string, line int) bool {
	if *names == nil {
		*names = map[string]int{}
	}
	if prev, ok := (*names)[name]; ok {
		ps.pr.add(line, kind+"="+name, "%s=%s is already defined on line %d", kind, name, prev)
		return false
	}
	(*names)[name] = line
	return true
}

// binaryLine returns the line of the first byte that no parameter file
// holds (invalid UTF-8, NUL or a control character other than tab, CR,
// LF and form feed), so that a binary file gets one short error instead
// of every parse error its bytes would give.
func binaryLine(data []byte) (int, bool) {
	line := 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			return line, true
		case r == '\n':
			line++
		case r < 0x20 && r != '\t' && r != '\r' && r != '\f', r == 0x7f:
			return line, true
		}
		i += n
	}
	return 0, false
}
