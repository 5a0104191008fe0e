package parmfile

import (
	"strings"
	"testing"
)

// TestParseRefusesBinary: a file with bytes no parameter file holds gets
// one short error naming the line of the first such byte, not a parse
// error per stray byte echoing them back.
func TestParseRefusesBinary(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"NUL", "sd=sd1,lun=/tmp/x\nwd=wd1\x00,sd=sd1\n", "f.vdb:2: not a text parameter file"},
		{"invalid UTF-8", "* comment\n\n\xff\xfe\n", "f.vdb:3: not a text parameter file"},
		{"escape", "\x1b[31m\n", "f.vdb:1: not a text parameter file"},
	} {
		_, err := Parse("f.vdb", []byte(tc.data))
		if err == nil || err.Error() != tc.want+" (a NUL or control byte, or bytes that are not UTF-8)" {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// Accented letters and tabs are text.
	if _, err := Parse("f.vdb", []byte("sd=sd1,lun=/tmp/é.img,\tsize=1m\n")); err != nil && strings.Contains(err.Error(), "not a text") {
		t.Errorf("text refused as binary: %v", err)
	}
}
