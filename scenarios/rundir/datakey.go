package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// DataKey identifies a data set: the workload's tool, the flags that
// shape its data (workload.DataShaper) and the database engine and
// version that holds it (dialect.ServerVersion). A campaign restores a
// data set only when the whole key matches.
type DataKey struct {
	Tool   string            `json:"tool"`
	Shape  map[string]string `json:"shape"`
	Engine string            `json:"engine"`
	// Disk is the layout vDisk the data set's vDisk was saved from, with
	// its size: "db-test 270GB" (a data set restores onto the same disk).
	Disk string `json:"disk"`
}

// ID is the data set's name: "<tool>-<first 12 hex digits of the SHA-256
// of the key as JSON>" (encoding/json sorts the map's keys).
func (k DataKey) ID() string {
	b, _ := json.Marshal(k)
	sum := sha256.Sum256(b)
	return k.Tool + "-" + hex.EncodeToString(sum[:6])
}

// String is "sysbench tables=4 table-size=10000 ... on sqlite 3.46.0".
func (k DataKey) String() string {
	names := make([]string, 0, len(k.Shape))
	for n := range k.Shape {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := []string{k.Tool}
	for _, n := range names {
		parts = append(parts, n+"="+k.Shape[n])
	}
	engine := k.Engine
	if engine == "" {
		engine = "the VMs' engine" // outside simulation, read once they are up
	}
	return strings.Join(parts, " ") + " on " + engine + ", vDisk " + k.Disk
}

// Differences lists how other differs from k: "table-size 1000 (wanted
// 10000)", "engine mysql 10.11 (wanted mysql 11.4)".
func (k DataKey) Differences(other DataKey) []string {
	var out []string
	names := map[string]bool{}
	for n := range k.Shape {
		names[n] = true
	}
	for n := range other.Shape {
		names[n] = true
	}
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range names {
			if !yield(n) {
				return
			}
		}
	}) {
		if k.Shape[n] != other.Shape[n] {
			out = append(out, fmt.Sprintf("%s %q (wanted %q)", n, other.Shape[n], k.Shape[n]))
		}
	}
	if k.Engine != other.Engine && k.Engine != "" { // "": any engine, checked on the VMs
		out = append(out, fmt.Sprintf("engine %q (wanted %q)", other.Engine, k.Engine))
	}
	if k.Disk != other.Disk {
		out = append(out, fmt.Sprintf("vDisk %q (wanted %q)", other.Disk, k.Disk))
	}
	return out
}
