//go:build !unix

package boundedread

import "testing"

// makeFIFO cannot make a FIFO here: "".
func makeFIFO(*testing.T, string) string { return "" }
