package vsphere

import (
	"strings"
	"testing"
)

func TestProvisionSpecValidateNamePrefix(t *testing.T) {
	layout, err := LayoutFor("sysbench")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prefix string
		ok     bool
	}{
		{"sysbench", true},
		{"db.v2_x-1", true},
		{"../x/y", false},
		{"a b", false},
		{"-lead", false},
	} {
		p := ProvisionSpec{CampaignID: "c1", Layout: layout, Count: 2, NamePrefix: tc.prefix, Template: "t", Datastores: []string{"ds"}}
		err := p.Validate()
		if got := err == nil || !strings.Contains(err.Error(), "prefix"); got != tc.ok {
			t.Errorf("prefix %q: Validate() = %v, want ok=%v", tc.prefix, err, tc.ok)
		}
	}
}
