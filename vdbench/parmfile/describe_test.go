package parmfile

import (
	"strings"
	"testing"
)

// Describe's times saturate instead of overflowing: 1,001 points of
// 2,000,000,000 s each are more than time.Duration holds.
func TestDescribeHugeTimes(t *testing.T) {
	p := mustParse(t, "sd=sd1,lun=/dev/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=curve,curve=(1-1000,1),elapsed=999999998,warmup=999999998,interval=499999999\n")
	text, err := p.Describe()
	if err != nil || !strings.Contains(text, "= more than 292 years") || !strings.Contains(text, "about more than 292 years") {
		t.Errorf("Describe: %v\n%s", err, text)
	}
}
