package parmfile

import (
	"embed"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
)

// profileFiles holds the built-in profiles, one parameter file each.
//
//go:embed profiles/*.vdb
var profileFiles embed.FS

// Profile is a built-in parameter file: a test of the review suite (see
// docs/vdbench.md, "The block suite") that a user can print, copy and
// change.
//
// Text is a complete vdbench-style file with one template sd line,
// "sd=sd1,lun=$target", after an sd=default line that holds the range,
// threads and openflags. Render (and Params) copy the template line once
// per target, naming the sds sd1, sd2, ..., and can override the threads;
// the wds name their sds with sd*, so they cover every target. Every value
// has its source in a * comment of the text.
type Profile struct {
	// Name is the kebab-case name: "4k-random-read".
	Name string
	// Title is the review's name: "4K random read".
	Title string
	// Text is the parameter file.
	Text string
	// Approximation is set for the profiles whose mix the reviews do not
	// publish (SQL, Oracle, VDI): the text defines one from public facts
	// and says so in an APPROXIMATION header.
	Approximation bool
	// Threads is the profile's threads= per target.
	Threads int
	// Mix says in one line what the profile runs.
	Mix string
}

// profileTable is the catalogue, in listing order. The four corners carry
// the older reviews' thread counts; the -newer variants the newer reviews'
// (4K random read uses 128 in both).
var profileTable = []struct {
	name, title string
	threads     int
	approx      bool
	mix         string
}{
	{"4k-random-read", "4K random read", 128, false, "4k, 100% read, random"},
	{"4k-random-write", "4K random write", 64, false, "4k, 100% write, random (older reviews)"},
	{"4k-random-write-newer", "4K random write (newer reviews)", 128, false, "4k, 100% write, random"},
	{"64k-sequential-read", "64K sequential read", 16, false, "64k, 100% read, sequential (older reviews)"},
	{"64k-sequential-read-newer", "64K sequential read (newer reviews)", 32, false, "64k, 100% read, sequential"},
	{"64k-sequential-write", "64K sequential write", 8, false, "64k, 100% write, sequential (older reviews)"},
	{"64k-sequential-write-newer", "64K sequential write (newer reviews)", 16, false, "64k, 100% write, sequential"},
	{"sql", "SQL", 64, true, "8k random reads 60, 64k-512k read-ahead 5, 8k/64k random writes 20, 4k-60k log 15 (65% reads)"},
	{"sql-90-10", "SQL 90-10", 64, true, "SQL's streams at 90% reads: 83.1, 6.9, 5.7, 4.3"},
	{"sql-80-20", "SQL 80-20", 64, true, "SQL's streams at 80% reads: 73.8, 6.2, 11.4, 8.6"},
	{"oracle", "Oracle", 64, true, "OLTP2: 8k random reads 65 (20 hits), 8k random writes 15, 64k sequential reads 10, writes 10"},
	{"oracle-90-10", "Oracle 90-10", 64, true, "OLTP2's streams at 90% reads: 24, 54, 6, 12, 4"},
	{"oracle-80-20", "Oracle 80-20", 64, true, "OLTP2's streams at 80% reads: 21.3, 48, 12, 10.7, 8"},
	{"vdi-fc-boot", "VDI Full Clone Boot", 64, true, "85% reads, 4k-64k, 90% random, over all of each target's span"},
	{"vdi-fc-initial-login", "VDI Full Clone Initial Login", 64, true, "35% reads, mostly 4k writes, 90% random"},
	{"vdi-fc-monday-login", "VDI Full Clone Monday Login", 64, true, "50% reads, 4k-64k, 90% random"},
	{"vdi-lc-boot", "VDI Linked Clone Boot", 64, true, "85% reads, 90% of them from a 10% replica region, 90% random"},
	{"vdi-lc-initial-login", "VDI Linked Clone Initial Login", 64, true, "35% reads (90% from the replica), mostly 4k writes"},
	{"vdi-lc-monday-login", "VDI Linked Clone Monday Login", 64, true, "50% reads (70% from the replica), 4k-64k"},
}

// Profiles returns the built-in profiles, in listing order.
func Profiles() []Profile {
	out := make([]Profile, len(profileTable))
	for i, e := range profileTable {
		data, err := profileFiles.ReadFile("profiles/" + e.name + ".vdb")
		if err != nil {
			panic("vdbench: built-in profile missing: " + err.Error())
		}
		out[i] = Profile{Name: e.name, Title: e.title, Text: string(data), Approximation: e.approx, Threads: e.threads, Mix: e.mix}
	}
	return out
}

// ProfileByName returns the profile of that name (case does not matter);
// the error lists the names.
func ProfileByName(name string) (Profile, error) {
	all := Profiles()
	names := make([]string, len(all))
	for i, p := range all {
		if strings.EqualFold(p.Name, strings.TrimSpace(name)) {
			return p, nil
		}
		names[i] = p.Name
	}
	return Profile{}, fmt.Errorf("no built-in vdbench profile %q (valid: %s)", name, strings.Join(names, ", "))
}

// profileTarget is the template sd line's placeholder.
const profileTarget = "$target"

var (
	templateLine = regexp.MustCompile(`^sd=sd1,lun=\$target(,.*)?$`)
	threadsParam = regexp.MustCompile(`(^|,)threads=\d+(,|$)`)
)

// Render returns the profile's text for targets: the template line
// "sd=sd1,lun=$target" becomes one sd line per target (sd1, sd2, ...), and
// threads > 0 replaces the profile's threads= per target, with a comment
// that says so. With no targets the template line stays as it is (the
// printed profile, for a user to edit). Comments are kept.
func (p Profile) Render(targets []string, threads int) (string, error) {
	if threads < 0 {
		return "", fmt.Errorf("profile %s: threads=%d: at least 1, or 0 for the profile's %d", p.Name, threads, p.Threads)
	}
	for i, t := range targets {
		if strings.TrimSpace(t) == "" || strings.ContainsAny(t, "\"\n\r") {
			return "", fmt.Errorf("profile %s: target %q is not a usable path", p.Name, t)
		}
		if slices.Contains(targets[:i], t) {
			return "", fmt.Errorf("profile %s: target %s is given twice", p.Name, t)
		}
	}
	lines := strings.SplitAfter(p.Text, "\n")
	tmpl, dflt := -1, -1
	for i, l := range lines {
		s := strings.TrimSpace(l)
		switch {
		case templateLine.MatchString(s):
			if tmpl >= 0 {
				return "", fmt.Errorf("profile %s: more than one sd=sd1,lun=%s line", p.Name, profileTarget)
			}
			tmpl = i
		case strings.HasPrefix(s, "sd=default,") && threadsParam.MatchString(s):
			dflt = i
		}
	}
	if tmpl < 0 || dflt < 0 {
		return "", fmt.Errorf("profile %s: no template (sd=default,...,threads=N and sd=sd1,lun=%s lines)", p.Name, profileTarget)
	}
	var b strings.Builder
	for i, l := range lines {
		switch {
		case i == tmpl && len(targets) > 0:
			rest := templateLine.FindStringSubmatch(strings.TrimSpace(l))[1]
			for n, t := range targets {
				fmt.Fprintf(&b, "sd=sd%d,lun=%s%s\n", n+1, quoteValue(t), rest)
			}
		case i == dflt && threads > 0:
			fmt.Fprintf(&b, "* threads=%d per target: set when the profile was rendered (the profile's own is %d)\n", threads, p.Threads)
			b.WriteString(threadsParam.ReplaceAllString(strings.TrimSpace(l), fmt.Sprintf("${1}threads=%d${2}", threads)) + "\n")
		default:
			b.WriteString(l)
		}
	}
	return b.String(), nil
}

// Params instantiates the profile for targets (at least one): one sd per
// target with lun= the target, range=(0,25), and the profile's threads per
// target unless threads > 0 overrides them. The result is validated.
func (p Profile) Params(targets []string, threads int) (*Params, error) {
	if len(targets) == 0 {
		return nil, fmt.Errorf("profile %s: no targets: give at least one block device or file", p.Name)
	}
	text, err := p.Render(targets, threads)
	if err != nil {
		return nil, err
	}
	params, err := Parse(p.Name+".vdb", []byte(text))
	if err != nil {
		return nil, err
	}
	if err := params.Validate(); err != nil {
		return nil, err
	}
	return params, nil
}

// WriteProfileList writes the built-in profiles as 'vmbench vdbench
// profiles' lists them: a table of name, title, threads per target,
// APPROX and mix, and a note on APPROX.
func WriteProfileList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTITLE\tTHREADS\tAPPROX\tMIX")
	for _, p := range Profiles() {
		mark := ""
		if p.Approximation {
			mark = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", p.Name, p.Title, p.Threads, mark, p.Mix)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nAPPROX: the reviews do not publish this mix; the file defines one from public facts, each number with its source.\nPrint one with 'vmbench vdbench profiles NAME'.")
	return err
}
