package target

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	tests := []struct {
		path string
		ok   bool
	}{
		{".", true},
		{"a", true},
		{"a/b/c.json", true},
		{".hidden", true},
		{"a/..b", true},
		{"a b/c'd", true},
		{"", false},
		{"/", false},
		{"/etc/passwd", false},
		{"..", false},
		{"../x", false},
		{"a/../../x", false},
		{"a/..", false},
		{"./a", false},
		{"a/./b", false},
		{"a//b", false},
		{"a/", false},
		{"//a", false},
		{`a\..\b`, false},
		{"a\x00b", false},
	}
	for _, tt := range tests {
		err := checkPath(tt.path)
		if tt.ok {
			if err != nil {
				t.Errorf("checkPath(%q) = %v, want nil", tt.path, err)
			}
			continue
		}
		if !errors.Is(err, ErrBadPath) {
			t.Errorf("checkPath(%q) = %v, want ErrBadPath", tt.path, err)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(tt.path)) {
			t.Errorf("checkPath(%q) error %q does not name the path", tt.path, err)
		}
	}
}
