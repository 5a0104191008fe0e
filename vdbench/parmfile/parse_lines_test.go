package parmfile

import (
	"strings"
	"testing"
)

// Errors in definitions continued over several lines name the line where
// the faulty keyword is, also after non-ASCII text (which once shifted
// every later line number, or panicked).
func TestErrorLinesOfContinuedDefinitions(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"parse error after accents", "sd=sd1,lun=/tmp/café-é-è.img,size=1m\n" +
			"wd=wd1,sd=sd1,\n  xfersize=4k,\n  rdpct=200\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{`t.vdb:4: rdpct: "200" is not a percentage`}},
		{"accents on a continued line", "sd=sd1,lun=/dev/x\nwd=wd1,sd=sd1,\n  xfersize=4k,\n" +
			"  rdpct=50,unknownkeyé=1,\n  seekpct=nonsense\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{`t.vdb:4: unknownkeyé: unknown wd keyword`, `t.vdb:5: seekpct: "nonsense" is not a seekpct`}},
		{"after a continued line with accents", "sd=sd1,\n  lun=\"/tmp/ééééééééééé.img\",\n  size=1q,\n" +
			"  openflags=o_direct,hitarea=64k,range=(0,50),\n  threads=0\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{`t.vdb:3: size: size "1q" is not a size`, `t.vdb:5: threads: "0" is not a whole number`}},
		{"validate error names the keyword's line", "sd=sd1,lun=/tmp/x.img,\n  size=8k\n" +
			"wd=wd1,sd=sd1,\n  rdpct=50,\n  xfersize=64k\nrd=rd1,wd=wd1,\n  iorate=max,\n  elapsed=3,\n  interval=2\n",
			[]string{"t.vdb:5: xfersize: wd=wd1: sd=sd1 has size=8k", "t.vdb:8: elapsed: rd=rd1: elapsed=3 must be at least twice interval=2"}},
		{"misplaced quote", "sd=sd1,lun=\"/dev/a\"b\nsd=sd2,lun=(\"/dev/c\"d)\n",
			[]string{`t.vdb:1: lun: misplaced quote in "/dev/a"b`, `t.vdb:2: lun: misplaced quote in the list`}},
		{"from a default definition", "sd=default,\n  threads=0\nsd=sd1,lun=/dev/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{`t.vdb:2: threads: "0" is not a whole number`}},
		{"curve without iorate=curve", "sd=sd1,lun=/dev/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,\n  curve=(10,50)\n",
			[]string{"t.vdb:4: curve: rd=rd1: curve= is given but iorate= is not curve"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := problemsOf(c.src)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
		})
	}
}
