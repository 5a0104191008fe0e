package review

import (
	"testing"

	"vmbench/oltp"
)

// A host's facts read as a sentence, not as a dump of keys.
func TestHostFactsSentence(t *testing.T) {
	merged := &oltp.Result{Hosts: map[string]map[string]string{"esx01": {
		"vendor": "Dell Inc.", "model": "PowerEdge R750", "sockets": "2", "cores": "56", "threads": "112",
		"cpu_model": "Intel(R) Xeon(R) Gold 6330", "cpu_mhz": "2000", "memory_gib": "1024", "memory_bytes": "1099511627776",
		"product": "VMware ESXi 8.0.2 build-22380479", "build": "22380479"}}}
	got := hostFacts(merged)
	want := "Dell Inc. PowerEdge R750, 2 sockets x 28 cores (112 threads) Intel(R) Xeon(R) Gold 6330 at 2000 MHz, 1024 GiB, VMware ESXi 8.0.2 build-22380479"
	if len(got) != 1 || got[0].Name != "Host esx01" || got[0].Value != want {
		t.Errorf("hostFacts: %+v\nwant Host esx01: %s", got, want)
	}
}
